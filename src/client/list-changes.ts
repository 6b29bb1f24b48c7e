import type { Client, ClientOptions } from '@modelcontextprotocol/client';
import type { ListKind } from './connect-options.js';
import { keepListening } from './list-subscription.js';
import type { ServerConnection } from './types.js';

/** The SDK subscribes per era (notifications, or `subscriptions/listen` on 2026-07-28); we only need the signal. */
export function listChangedHandlers(
  notify: (kind: ListKind) => void,
): NonNullable<ClientOptions['listChanged']> {
  const handler = (kind: ListKind) => ({
    autoRefresh: false,
    // No debounce: a call made right after a change must be able to wait for the new definitions
    // (the registry folds bursts into one re-listing).
    debounceMs: 0,
    onChanged: () => notify(kind),
  });
  return { tools: handler('tools'), resources: handler('resources'), prompts: handler('prompts') };
}

/**
 * 2026-07-28: the SDK opens the `subscriptions/listen` stream once; keep it
 * open across drops (see keepListening), and after each re-open report every
 * list it covers as changed, since announcements made meanwhile were lost.
 */
export function keepHearingListChanges(
  client: Client,
  connection: Pick<ServerConnection, 'capabilities' | 'onClose'> & { readonly requestTimeoutMs: number },
  onListChanged: (kind: ListKind) => void,
): void {
  const caps = connection.capabilities;
  const filter = {
    ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
    ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
    ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
  };
  if (Object.keys(filter).length === 0) return;
  const stop = keepListening(client, client.autoOpenedSubscription, {
    filter,
    ackTimeoutMs: connection.requestTimeoutMs,
    onReopened: (honored) => {
      if (honored.toolsListChanged) onListChanged('tools');
      if (honored.resourcesListChanged) onListChanged('resources');
      if (honored.promptsListChanged) onListChanged('prompts');
    },
  });
  connection.onClose(stop);
}
