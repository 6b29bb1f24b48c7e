import type { ServerConfig } from '../config/index.js';
import { type CallerOffer, NO_OFFER } from '../daemon-client/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import { GatewayCore, LiveSessions, Paginator } from '../gateway/index.js';
import type { MetricsRecorder } from '../metrics/index.js';
import type { PermissionGuard } from '../permissions/index.js';
import type { ServerRegistry } from '../registry/index.js';
import { createInstanceKeys, type InstanceKey } from './instance-key.js';

/**
 * One server process the daemon holds for one resolved entry: its own
 * registry (so no other caller's entry can ever replace what runs there) and
 * its own transparent gateway core, with the figures `daemon status` shows.
 */
export interface Instance {
  readonly key: InstanceKey;
  readonly config: ServerConfig;
  /** What its server is told its client can answer: what each of its callers offered. */
  readonly offer: CallerOffer;
  readonly registry: ServerRegistry;
  readonly core: GatewayCore;
  /** Pages of its lists, shared by its clients (as the gateway's are). */
  readonly pages: Paginator;
  /** Its callers' session servers: a change of the server's lists is told to each of them. */
  readonly live: LiveSessions;
  /** Who uses it now (`daemon status`). */
  readonly sessions: Set<InstanceSession>;
  calls: number;
  clients: number;
  lastUsed: number;
  connectedAt?: number;
  lastError?: string;
  /** Why it stopped since the last call (a crash), told to the next caller. */
  crashed?: string;
  /** Handed to no new caller; stopped when its last caller leaves. */
  retired: boolean;
  idle?: NodeJS.Timeout;
  unsubscribe: () => void;
}

/** One caller joined to an instance, until it leaves. */
export interface InstanceSession {
  readonly pid?: number;
  readonly command: string;
  readonly since: number;
  calls: number;
}

export interface InstancePoolOptions {
  /** A registry holding exactly this entry, wired like the daemon's own (its connector, lazy reconnects). */
  readonly createRegistry: (config: ServerConfig) => Promise<ServerRegistry>;
  /** The permission guard for this entry's calls, from the same composition root (`Host.createGuard`). */
  readonly createGuard: (config: ServerConfig) => Promise<PermissionGuard>;
  /** An instance stops after this long without a client, unless its `keep_alive_idle` says otherwise. */
  readonly serverIdleMs: number;
  /** While a server runs for more than one environment, an idle instance goes sooner: after this. */
  readonly extraIdleMs?: number;
  /** Instances of one server at most (one per environment); the least recently used idle one makes room. */
  readonly maxPerServer?: number;
  /** Where each instance's upstream requests and restarts are counted. */
  readonly metrics?: MetricsRecorder;
  readonly now: () => number;
}

export interface InstancePool {
  /**
   * The instance for this resolved entry and this caller's offer, counted as
   * one more client until `release`: the one already running for the same
   * values and offer, else a new one. Never stops an instance that has a
   * client; an edited entry retires the old instances (each stops when its
   * last client leaves), whatever they offered.
   */
  acquire(config: ServerConfig, offer?: CallerOffer): Promise<Instance>;
  release(instance: Instance): void;
  /** Held from the start (`--all`) for callers making `offer`: created, not connected, no client. */
  hold(config: ServerConfig, offer?: CallerOffer): Promise<Instance>;
  /** The instance whose registry holds this very entry object (its connector asks). */
  owning(config: ServerConfig): Instance | undefined;
  list(): Instance[];
  /** Stop every instance; resolves when no server process remains. */
  close(): Promise<void>;
}

/** Instances of one server at once, unless told otherwise: room for a few profiles, not a fork bomb. */
export const DEFAULT_MAX_INSTANCES = 4;
/** An idle instance beside others of its server stops after this (unless its own idle time is shorter). */
export const DEFAULT_EXTRA_IDLE_MS = 120_000;

/**
 * The daemon's servers, one instance per distinct environment and offer. Two
 * callers whose entries resolve to different values (an `env_passthrough`
 * variable, a `${VAR}`) get separate processes, so neither's call runs with
 * the other's values and neither's arrival restarts what the other is using;
 * callers with the same values share one. So do callers whose front ends
 * answer the same questions: a server shaped by what its client declared
 * (`daemon-client/caller-offer.ts`) is never shown to a caller that declares something else.
 * Long because the pool's methods share its instances, their idle timers and the per-server limit in
 * one closure.
 */
export function createInstancePool(options: InstancePoolOptions): InstancePool {
  const keyOf = createInstanceKeys();
  const maxPerServer = options.maxPerServer ?? DEFAULT_MAX_INSTANCES;
  const extraIdleMs = options.extraIdleMs ?? DEFAULT_EXTRA_IDLE_MS;
  const instances = new Map<string, Instance>();
  const stopping = new Set<Promise<void>>();
  let closed = false;

  const siblings = (instance: Instance) =>
    [...instances.values()].filter(
      (i) => i !== instance && !i.retired && i.config.name === instance.config.name,
    );

  const create = async (config: ServerConfig, key: InstanceKey, offer: CallerOffer): Promise<Instance> => {
    const [registry, guard] = await Promise.all([
      options.createRegistry(config),
      options.createGuard(config),
    ]);
    const instance: Instance = {
      key,
      config,
      offer,
      registry,
      core: new GatewayCore({
        registry,
        servers: [config],
        transparent: config.name,
        guard,
        carryErrors: true,
        ...(options.metrics ? { metrics: options.metrics } : {}),
      }),
      pages: new Paginator(),
      live: new LiveSessions(),
      sessions: new Set(),
      calls: 0,
      clients: 0,
      lastUsed: options.now(),
      retired: false,
      unsubscribe: () => {},
    };
    const stopCounting = options.metrics?.watchRestarts(registry, key.tag);
    const stopWatching = registry.on((event) => {
      if (event.type !== 'state') return;
      if (event.state === 'ready' && event.previous === 'starting') instance.connectedAt = options.now();
      if (event.state === 'stopped' || event.state === 'error') instance.connectedAt = undefined;
      if (event.state === 'error' && event.error) {
        instance.lastError = event.error.message;
        if (event.previous === 'ready' || event.previous === 'busy') instance.crashed = event.error.message;
      }
    });
    instance.unsubscribe = () => {
      stopWatching();
      stopCounting?.();
    };
    // Shared by every caller: a list the server changed is every caller's news (their own
    // sessions, gateways included, tell their clients in turn).
    instance.core.onListChanged((kind) => instance.live.listChanged(kind));
    // A log message outside any one caller's call is every caller's (as a gateway's is).
    instance.core.onLog((message) => instance.live.log(message));
    instances.set(key.id, instance);
    // With a second environment about, the idle ones wait only the shorter time.
    for (const sibling of siblings(instance)) armIdle(sibling);
    return instance;
  };

  const stop = (instance: Instance) => {
    if (instances.get(instance.key.id) !== instance) return;
    instances.delete(instance.key.id);
    clearTimeout(instance.idle);
    instance.unsubscribe();
    instance.core.dispose();
    const done = instance.registry.close().catch(() => {});
    stopping.add(done);
    void done.finally(() => stopping.delete(done));
  };

  const retire = (instance: Instance) => {
    instance.retired = true;
    if (instance.clients === 0) stop(instance);
  };

  const armIdle = (instance: Instance) => {
    clearTimeout(instance.idle);
    if (instance.clients > 0 || closed) return;
    const own = instance.config.keepAliveIdleMs ?? options.serverIdleMs;
    const others = siblings(instance).length > 0;
    instance.idle = setTimeout(
      () => {
        if (instance.clients > 0 || instances.get(instance.key.id) !== instance) return;
        // The last instance of a server stays listed (stopped) and starts again on the next call.
        if (siblings(instance).length > 0) stop(instance);
        else void instance.registry.disconnect(instance.config.name).catch(() => {});
      },
      others ? Math.min(own, extraIdleMs) : own,
    );
    instance.idle.unref();
  };

  const acquireNow = async (config: ServerConfig, offer: CallerOffer): Promise<Instance> => {
    if (closed) throw new McpxError(ErrorCode.DaemonUnavailable, 'the mcpx daemon is stopping');
    const key = keyOf(config, offer);
    let instance = instances.get(key.id);
    if (!instance || instance.retired) {
      const same = [...instances.values()].filter((i) => !i.retired && i.config.name === config.name);
      // An edited entry: the old definition's instances go as soon as nobody uses them. Only its
      // own file's: a config with the same text elsewhere (see paths.ts#contentAlias) that says
      // something else now is another config, not an edit of this one.
      for (const other of same)
        if (other.key.definition !== key.definition && other.config.origin.file === config.origin.file)
          retire(other);
      const live = same.filter((i) => !i.retired);
      if (live.length >= maxPerServer) {
        const idle = live.filter((i) => i.clients === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
        if (!idle) throw tooMany(config.name, maxPerServer);
        retire(idle);
      }
      instance = await create(config, key, offer);
    }
    instance.clients += 1;
    instance.lastUsed = options.now();
    clearTimeout(instance.idle);
    return instance;
  };

  // One at a time: two callers must not both make room, or both start the same instance.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work);
    queue = next.catch(() => {});
    return next;
  };

  return {
    acquire: (config, offer = NO_OFFER) => serially(() => acquireNow(config, offer)),
    release(instance) {
      instance.clients -= 1;
      instance.lastUsed = options.now();
      if (instance.retired) {
        if (instance.clients === 0) stop(instance);
      } else armIdle(instance);
    },
    hold: (config, offer = NO_OFFER) => serially(() => create(config, keyOf(config, offer), offer)),
    owning: (config) => [...instances.values()].find((i) => i.config === config),
    list: () => [...instances.values()],
    async close() {
      closed = true;
      for (const instance of [...instances.values()]) stop(instance);
      await Promise.all([...stopping]);
    },
  };
}

function tooMany(server: string, max: number): McpxError {
  return new McpxError(
    ErrorCode.DaemonUnavailable,
    `the mcpx daemon already runs '${server}' for ${max} other environments, each of them in a call`,
    {
      server,
      causes: [
        `callers with ${max + 1} different env_passthrough values (or \${VAR}s) used it at once`,
        'or callers that answer different questions (a script, a terminal, chat, a gateway), each needing its own instance',
      ],
      fixes: ['nothing to do: this command starts it directly, with its own environment'],
    },
  );
}
