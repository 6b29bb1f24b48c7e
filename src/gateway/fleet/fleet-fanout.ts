/**
 * List changes and resource updates fanned out across a fleet (`mcpx serve --http --state`): what
 * one instance hears from its upstreams (`tools/list_changed` and the like, `resources/updated`)
 * is published on `${prefix}fanout`, and every other instance passes it to its own listeners — the
 * 2026-07-28 `subscriptions/listen` streams and the 2025-11-25 sessions, list changes to all, a
 * resource's update to those subscribed to that resource. Each instance still runs its own
 * upstreams: a listener told of a change lists or reads again through its instance.
 *
 * A message carries no secret (a list's kind, a public resource URI, the sender's instance id) and
 * is another process's words: bounded, parsed and checked before it is used, and an instance
 * ignores its own. Pub/sub delivers to those connected when it is sent: while the store is down,
 * a change reaches only the instance that heard it (reported), and ioredis subscribes again by
 * itself when the store is back.
 */
import type { ListKind, ResourceSubscription } from '../../client/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import type { FleetState } from './fleet-state.js';
import { storeError } from './store-error.js';

/** A message longer than this is not one of ours. */
const MAX_MESSAGE_CHARS = 16 * 1024;
const LIST_KINDS: readonly string[] = ['tools', 'resources', 'prompts'] satisfies ListKind[];

/** What of the gateway core is fanned out. */
export interface FanoutSource {
  onListChanged(listener: (kind: ListKind) => void): () => void;
  subscribe(uri: string, onUpdated: (uri: string) => void): Promise<ResourceSubscription>;
}

/** The core's `onListChanged` and `subscribe`, hearing the whole fleet's; `close` stops. */
export interface FleetFanout extends FanoutSource {
  close(): void;
}

type Message =
  | { readonly kind: 'list'; readonly list: ListKind }
  | { readonly kind: 'resource'; readonly uri: string };

/**
 * Fan `core`'s list changes and resource updates out through `fleet`'s store, and its peers' in.
 * `onPublishFailed`: a change could not be published (the store down): it reached this instance only.
 */
export function startFanout(
  fleet: FleetState,
  core: FanoutSource,
  onPublishFailed: (error: unknown) => void,
): FleetFanout {
  const channel = `${fleet.prefix}fanout`;
  const listListeners = new Set<(kind: ListKind) => void>();
  const resourceListeners = new Map<string, Set<(uri: string) => void>>();
  const publish = (message: Message) => {
    fleet.redis
      .publish(channel, JSON.stringify({ from: fleet.instanceId, ...message }))
      .catch((error: unknown) => onPublishFailed(error));
  };
  // One upstream update reaches each local subscriber of its URI in the same turn: published once.
  const pending = new Set<string>();
  const published = (uri: string) => {
    if (pending.has(uri)) return;
    pending.add(uri);
    queueMicrotask(() => {
      pending.delete(uri);
      publish({ kind: 'resource', uri });
    });
  };
  const stopLocal = core.onListChanged((list) => publish({ kind: 'list', list }));
  const subscriber = fleet.subscriber();
  const onMessage = (from: string, text: string) => {
    if (from !== channel) return;
    const message = parse(text, fleet.instanceId);
    if (message?.kind === 'list') for (const listener of listListeners) listener(message.list);
    else if (message) for (const listener of resourceListeners.get(message.uri) ?? []) listener(message.uri);
  };
  subscriber.on('message', onMessage);
  // Subscribed again by ioredis after each reconnect (autoResubscribe); a failure now is the store's outage.
  subscriber.subscribe(channel).catch(() => {});
  return {
    onListChanged(listener) {
      listListeners.add(listener);
      const stop = core.onListChanged(listener);
      return () => {
        listListeners.delete(listener);
        stop();
      };
    },
    async subscribe(uri, onUpdated) {
      const subscription = await core.subscribe(uri, (changed) => {
        onUpdated(changed);
        published(changed);
      });
      const listeners = resourceListeners.get(uri) ?? new Set();
      resourceListeners.set(uri, listeners);
      listeners.add(onUpdated);
      return {
        uri: subscription.uri,
        ended: subscription.ended,
        unsubscribe: async () => {
          listeners.delete(onUpdated);
          if (listeners.size === 0) resourceListeners.delete(uri);
          await subscription.unsubscribe();
        },
      };
    },
    close() {
      stopLocal();
      subscriber.off('message', onMessage);
      listListeners.clear();
      resourceListeners.clear();
    },
  };
}

/** A peer's message, checked: undefined for one of ours, one too long, or one that is not a change. */
function parse(text: string, self: string): Message | undefined {
  if (text.length > MAX_MESSAGE_CHARS) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { from, kind, list, uri } = value as Record<string, unknown>;
  if (typeof from !== 'string' || from === self) return undefined;
  if (kind === 'list' && typeof list === 'string' && LIST_KINDS.includes(list))
    return { kind, list: list as ListKind };
  if (kind === 'resource' && typeof uri === 'string' && uri.length > 0) return { kind, uri };
  return undefined;
}

/** A change that reached only this instance's listeners, for the gateway to tell. */
export function notFannedOut(fleet: Pick<FleetState, 'where'>, cause: unknown): McpxError {
  return new McpxError(
    ErrorCode.FleetStateUnavailable,
    `a list change or resource update was not passed to the fleet's other instances (the shared state at ${fleet.where} failed): only this instance's clients were told`,
    {
      cause,
      causes: [storeError(cause)],
      fixes: ['bring the store back: the instances reconnect by themselves (see /healthz)'],
    },
  );
}
