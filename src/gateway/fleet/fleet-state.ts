import { Redis, type RedisOptions } from 'ioredis';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { storeError, withoutCredentials } from './store-error.js';

/** Whether the shared store answers now, and why not when it does not. */
export interface FleetStoreStatus {
  readonly up: boolean;
  /** The last error seen while it is down, in words (never the URL's password). */
  readonly error?: string;
}

/**
 * The state every instance of a fleet shares (`mcpx serve --http --state redis://…`): one
 * Redis (or Valkey) that consent answers, SSE events, 2025-11-25 sessions, fan-out and
 * per-client limits live in. One instance without it keeps all of these in its own memory.
 */
export interface FleetState {
  /** The store's address for messages and `/healthz`: scheme, host, port and database, never credentials. */
  readonly where: string;
  /** Every key the fleet writes starts with it, so one Redis can hold several fleets (`mcpx:` by default). */
  readonly prefix: string;
  /** This instance (`--instance-id`), or a random id: who wrote an event or holds a session. */
  readonly instanceId: string;
  /** The command connection. Commands fail fast while the store is down (no offline queue): never a silent wait. */
  readonly redis: Redis;
  /**
   * A further connection for `SUBSCRIBE`/`PSUBSCRIBE` (one in subscriber mode takes no other
   * command), made on first use and closed with the rest.
   */
  subscriber(): Redis;
  status(): FleetStoreStatus;
  /** Told each time the store goes down or comes back; returns the unsubscribe. */
  onStatus(listener: (status: FleetStoreStatus) => void): () => void;
  close(): Promise<void>;
}

export interface FleetStateOptions {
  readonly instanceId: string;
  /** Default `mcpx:`. */
  readonly prefix?: string;
  /** How long the first connection may take before `openFleetState` gives up (default 5 s). */
  readonly connectTimeoutMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
// Reconnect soon after an outage, then at most every 2 s: a restarted Redis is used again quickly.
const retryDelay = (attempt: number): number => Math.min(100 * attempt, 2_000);

/**
 * Connect to the fleet's store at `url` (`redis://[user:password@]host:port[/db]`,
 * `rediss://` for TLS). Fails with FLEET_STATE_UNAVAILABLE when the URL is not one or the
 * store cannot be reached in time: a fleet instance that started without its shared state
 * would silently ask consent again and lose streams, so it does not start.
 */
export async function openFleetState(url: string, options: FleetStateOptions): Promise<FleetState> {
  const where = describeStore(url);
  const settings: RedisOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    retryStrategy: retryDelay,
    // The store's own name for this connection, seen in `CLIENT LIST` when a fleet is debugged.
    connectionName: `mcpx-${options.instanceId}`,
  };
  const redis = new Redis(url, settings);
  let status: FleetStoreStatus = { up: false, error: 'not connected yet' };
  const listeners = new Set<(status: FleetStoreStatus) => void>();
  const set = (next: FleetStoreStatus) => {
    const changed = next.up !== status.up;
    status = next;
    if (changed) for (const listener of listeners) listener(next);
  };
  redis.on('ready', () => set({ up: true }));
  // ioredis emits every failed reconnect as an 'error'; without a listener Node would throw it.
  redis.on('error', (error: Error) => set({ up: false, error: storeError(error) }));
  redis.on('end', () => set({ up: false, error: 'connection closed' }));
  redis.on('close', () => {
    if (status.up) set({ up: false, error: 'connection lost' });
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw unavailable(where, error);
  }
  let subscriber: Redis | undefined;
  return {
    where,
    prefix: options.prefix ?? 'mcpx:',
    instanceId: options.instanceId,
    redis,
    subscriber() {
      if (!subscriber) {
        subscriber = redis.duplicate({
          enableOfflineQueue: true,
          connectionName: `mcpx-${options.instanceId}-sub`,
        });
        subscriber.on('error', () => {
          // Its outages are the command connection's too, reported there.
        });
      }
      return subscriber;
    },
    status: () => status,
    onStatus(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await Promise.all([quit(redis), subscriber ? quit(subscriber) : undefined]);
    },
  };
}

/** A `--state` URL as it may be shown: no user or password. */
function describeStore(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badUrl(url);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw badUrl(url);
  const db = parsed.pathname.length > 1 ? parsed.pathname : '';
  return `${parsed.protocol}//${parsed.hostname}:${parsed.port || '6379'}${db}`;
}

function unavailable(where: string, error: unknown): McpxError {
  return new McpxError(ErrorCode.FleetStateUnavailable, `cannot reach the fleet's shared state at ${where}`, {
    cause: error,
    causes: [storeError(error)],
    fixes: [
      'start Redis (or Valkey) there or correct --state; or leave out --state to run one instance with its state in memory',
    ],
  });
}

function badUrl(url: string): McpxError {
  const shown = withoutCredentials(url);
  return new McpxError(
    ErrorCode.FleetStateUnavailable,
    `--state takes a redis:// or rediss:// URL, got '${shown}'`,
    {
      fixes: ['e.g. --state redis://127.0.0.1:6379 (a password: redis://:PASSWORD@host:6379)'],
    },
  );
}

async function quit(connection: Redis): Promise<void> {
  if (connection.status === 'end') return;
  await connection.quit().catch(() => connection.disconnect());
}
