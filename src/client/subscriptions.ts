/**
 * Resource subscriptions in both eras, behind one API: on 2025-11-25 `resources/subscribe`
 * and unsolicited `notifications/resources/updated`; on 2026-07-28 one
 * `subscriptions/listen` stream per URI with a `resourceSubscriptions` filter (the SDK's
 * `listen()`), whose notifications the SDK dispatches to the same handler.
 */
import type { Client, McpSubscription, RequestOptions } from '@modelcontextprotocol/client';
import { ErrorCode, McpxError } from '../errors/index.js';
import { type Throttle, throttle } from './throttle.js';
import type { ProtocolEra } from './types.js';

/** How a subscription ended. */
export type SubscriptionEnd = 'unsubscribed' | 'ended-by-server' | 'connection-lost';

/** One caller's subscription to one resource. */
export interface ResourceSubscription {
  readonly uri: string;
  /** Stop being told; the server is told once the last subscriber of this URI leaves. Idempotent. */
  unsubscribe(): Promise<void>;
  /** Resolves once no more updates will come, and why (never rejects). */
  readonly ended: Promise<SubscriptionEnd>;
}

interface Watched {
  readonly listeners: Set<Listener>;
  /** The subscribe request (and, on 2026-07-28, the listen stream it opened). */
  ready: Promise<McpSubscription | undefined>;
  /** Tells every listener of an update, repeats coalesced (see the handler). */
  readonly updated: Throttle;
}

interface Listener {
  onUpdated(uri: string): void;
  end(reason: SubscriptionEnd): void;
}

/**
 * The subscriptions of one connection. Several callers may watch the same URI: the
 * server is asked once, and told to stop once the last of them unsubscribes.
 */
export class ResourceSubscriptions {
  readonly #watched = new Map<string, Watched>();

  constructor(
    private readonly client: Client,
    private readonly era: ProtocolEra,
    private readonly server: string,
  ) {
    // An update says only "read it again": a server repeating it for one URI thousands of times
    // is told onwards at once, then at most once per interval, and always after the last, so a
    // watcher never misses the final state and a flood is not a flood of reads.
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      this.#watched.get(notification.params.uri)?.updated();
    });
  }

  /**
   * Subscribe to `uri`; `onUpdated` is called when `notifications/resources/updated` names it
   * (at once, then at most once per `NOTICE_INTERVAL_MS` while updates keep coming, and always
   * after the last).
   */
  async subscribe(
    uri: string,
    onUpdated: (uri: string) => void,
    options: RequestOptions,
  ): Promise<ResourceSubscription> {
    let resolveEnd!: (reason: SubscriptionEnd) => void;
    const ended = new Promise<SubscriptionEnd>((resolve) => {
      resolveEnd = resolve;
    });
    let done = false;
    const listener: Listener = {
      onUpdated: (u) => {
        if (!done) onUpdated(u);
      },
      end: (reason) => {
        if (done) return;
        done = true;
        resolveEnd(reason);
      },
    };
    let watched = this.#watched.get(uri);
    if (!watched) {
      const listeners = new Set<Listener>();
      const fresh: Watched = {
        listeners,
        ready: this.#ask(uri, options),
        updated: throttle(() => {
          for (const l of listeners) l.onUpdated(uri);
        }),
      };
      watched = fresh;
      this.#watched.set(uri, fresh);
      fresh.ready.then(
        (stream) => {
          // A listen stream the server ends, or that drops, ends every subscriber of it.
          void stream?.closed.then((how) => {
            if (how === 'local' || this.#watched.get(uri) !== fresh) return;
            this.#watched.delete(uri);
            fresh.updated.stop();
            for (const l of fresh.listeners)
              l.end(how === 'graceful' ? 'ended-by-server' : 'connection-lost');
          });
        },
        () => {
          if (this.#watched.get(uri) === fresh) this.#watched.delete(uri);
          fresh.updated.stop();
        },
      );
    }
    watched.listeners.add(listener);
    try {
      await watched.ready;
    } catch (error) {
      watched.listeners.delete(listener);
      throw error;
    }
    const entry = watched;
    return {
      uri,
      ended,
      unsubscribe: async () => {
        if (done) return;
        listener.end('unsubscribed');
        entry.listeners.delete(listener);
        if (entry.listeners.size > 0 || this.#watched.get(uri) !== entry) return;
        this.#watched.delete(uri);
        entry.updated.stop();
        const stream = await entry.ready.catch(() => undefined);
        if (stream) await stream.close();
        else
          await this.client
            .unsubscribeResource({ uri }, { timeout: options.timeout ?? 10_000 })
            .catch(() => {});
      },
    };
  }

  /** The connection closed: every subscription ends. */
  connectionClosed(): void {
    for (const watched of this.#watched.values()) {
      watched.updated.stop();
      for (const listener of watched.listeners) listener.end('connection-lost');
    }
    this.#watched.clear();
  }

  async #ask(uri: string, options: RequestOptions): Promise<McpSubscription | undefined> {
    if (this.era === 'legacy') {
      await this.client.subscribeResource({ uri }, options);
      return undefined;
    }
    const stream = await this.client.listen({ resourceSubscriptions: [uri] }, options);
    if (!stream.honoredFilter.resourceSubscriptions?.includes(uri)) {
      await stream.close();
      throw new McpxError(
        ErrorCode.ServerRejected,
        `'${this.server}' did not accept a subscription to ${uri}`,
        {
          server: this.server,
          causes: ['the server acknowledged the subscription stream without this resource in its filter'],
          fixes: ['read the resource again when you need it instead of watching it'],
        },
      );
    }
    return stream;
  }
}
