import { afterEach, describe, expect, it } from 'vitest';
import { SERVER_DEFAULTS } from '../../../src/config/entry/server-defaults.js';
import type { ServerConfig } from '../../../src/config/types.js';
import { createInstanceKeys } from '../../../src/daemon/instance-key.js';
import { createInstancePool, type InstancePool } from '../../../src/daemon/instance-pool.js';
import type { CallerOffer } from '../../../src/daemon-client/caller-offer.js';
import { withCallerEnv } from '../../../src/daemon-client/passthrough.js';
import { ErrorCode, McpxError } from '../../../src/errors/index.js';
import { createPermissionGuard, denyingApprover } from '../../../src/permissions/index.js';
import { ServerRegistry } from '../../../src/registry/index.js';

/** The entry as written once, resolved by a caller whose MCPX_PROFILE is `profile`. */
function entry(profile: string | undefined, written: Record<string, unknown> = {}): ServerConfig {
  const config: ServerConfig = {
    ...SERVER_DEFAULTS,
    name: 'kube',
    transport: 'stdio',
    command: 'kube-mcp',
    envPassthrough: ['MCPX_PROFILE'],
    origin: { layer: 'global', file: '/home/u/.mcpx/mcp.json', line: 2 },
    fingerprint: 'f',
    asWritten: { command: 'kube-mcp', env_passthrough: ['MCPX_PROFILE'], ...written },
  };
  return withCallerEnv(config, profile === undefined ? {} : { MCPX_PROFILE: profile }, 'linux');
}

const closed: ServerRegistry[] = [];
let tick = 0;
let pool: InstancePool;

function newPool(options: { maxPerServer?: number } = {}): InstancePool {
  pool = createInstancePool({
    // Never connected here: the pool's bookkeeping needs no server.
    createRegistry: async (config) => {
      const registry = new ServerRegistry([config], {
        connector: () => Promise.reject(new Error('not in this test')),
      });
      const close = registry.close.bind(registry);
      registry.close = () => {
        closed.push(registry);
        return close();
      };
      return registry;
    },
    createGuard: async () => createPermissionGuard({ level: 'yolo', approver: denyingApprover('a test') }),
    serverIdleMs: 600_000,
    // A clock that moves on every reading: "least recently used" is then never a tie.
    now: () => ++tick,
    ...options,
  });
  return pool;
}

afterEach(async () => {
  await pool?.close();
  closed.length = 0;
});

/** A terminal's offer: it can answer forms and URLs. */
const ASKS: CallerOffer = { capabilities: { elicitation: { form: { applyDefaults: true }, url: {} } } };
const rooted = (dir: string): CallerOffer => ({
  capabilities: { roots: { listChanged: true } },
  roots: [{ uri: `file://${dir}` }],
});

describe('instance keys', () => {
  it('tell offers apart: what a caller can answer, and its roots', () => {
    const keys = createInstanceKeys();
    const none = keys(entry('prod'));
    expect(keys(entry('prod'), { capabilities: {} }).id).toBe(none.id);
    expect(keys(entry('prod'), ASKS).id).not.toBe(none.id);
    expect(keys(entry('prod'), rooted('/a')).id).not.toBe(keys(entry('prod'), rooted('/b')).id);
    expect(keys(entry('prod'), ASKS).definition).toBe(none.definition);
  });

  it('tell environments apart without showing them, and an edited entry from a changed environment', () => {
    const keys = createInstanceKeys();
    const prod = keys(entry('prod'));
    const dev = keys(entry('dev'));
    expect(keys(entry('prod')).id).toBe(prod.id);
    expect(dev.id).not.toBe(prod.id);
    expect(dev.definition).toBe(prod.definition);
    expect(keys(entry('prod', { args: ['--verbose'] })).definition).not.toBe(prod.definition);
    expect(prod.tag).toMatch(/^[0-9a-f]{8}$/);
    expect(`${prod.id}${prod.definition}`).not.toContain('prod');
    // Keyed per daemon: a tag cannot be guessed back by hashing likely values.
    expect(createInstanceKeys()(entry('prod')).id).not.toBe(prod.id);
  });
});

describe('the instance pool', () => {
  it('shares one instance between equal environments and gives another its own', async () => {
    newPool();
    const a = await pool.acquire(entry('prod'));
    const b = await pool.acquire(entry('prod'));
    const c = await pool.acquire(entry('dev'));
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    expect(c.registry).not.toBe(a.registry);
    expect(a.clients).toBe(2);
    expect(pool.list()).toEqual([a, c]);
    // Each registry holds its own caller's values, and answers for that very entry object.
    expect(a.registry.status('kube').config.env).toEqual({ MCPX_PROFILE: 'prod' });
    expect(c.registry.status('kube').config.env).toEqual({ MCPX_PROFILE: 'dev' });
    expect(pool.owning(c.config)).toBe(c);
    expect(pool.owning(entry('dev'))).toBeUndefined();
  });

  it('gives callers that answer different questions instances of their own; equal offers share', async () => {
    newPool();
    const script = await pool.acquire(entry('prod'));
    const terminal = await pool.acquire(entry('prod'), ASKS);
    const alsoTerminal = await pool.acquire(entry('prod'), {
      capabilities: { elicitation: { url: {}, form: { applyDefaults: true } } },
    });
    const withRoots = await pool.acquire(entry('prod'), rooted('/srv/a'));
    const otherRoots = await pool.acquire(entry('prod'), rooted('/srv/b'));
    expect(alsoTerminal).toBe(terminal);
    expect(new Set([script, terminal, withRoots, otherRoots]).size).toBe(4);
    expect(script.offer).toEqual({ capabilities: {} });
    expect(terminal.offer).toEqual(ASKS);
    expect(withRoots.offer.roots).toEqual([{ uri: 'file:///srv/a' }]);
    // Offers are not edits: none retires another.
    expect(pool.list().some((instance) => instance.retired)).toBe(false);
    // An edit of the entry retires every offer's instance.
    pool.release(script);
    pool.release(terminal);
    pool.release(alsoTerminal);
    pool.release(withRoots);
    await pool.acquire(entry('prod', { args: ['--read-only'] }), ASKS);
    expect(closed).toHaveLength(3);
    expect(otherRoots.retired).toBe(true);
  });

  it("retires an edited entry's instance: at once when idle, after its last caller when in use", async () => {
    newPool();
    const old = await pool.acquire(entry('prod'));
    const idleOld = await pool.acquire(entry('dev'));
    pool.release(idleOld);
    const edited = await pool.acquire(entry('prod', { args: ['--read-only'] }));
    expect(edited).not.toBe(old);
    // The idle one is gone; the one in a call runs on, but is handed to nobody new.
    expect(closed).toEqual([idleOld.registry]);
    expect(pool.list()).toEqual([old, edited]);
    expect(old.retired).toBe(true);
    pool.release(old);
    expect(closed).toEqual([idleOld.registry, old.registry]);
    expect(pool.list()).toEqual([edited]);
  });

  it('makes room at the cap by stopping the least recently used idle instance, never one in use', async () => {
    newPool({ maxPerServer: 2 });
    const one = await pool.acquire(entry('one'));
    const two = await pool.acquire(entry('two'));
    const refused = await pool.acquire(entry('three')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpxError);
    expect((refused as McpxError).code).toBe(ErrorCode.DaemonUnavailable);
    expect((refused as McpxError).message).not.toContain('three');
    expect(closed).toEqual([]);
    pool.release(two);
    pool.release(one);
    const three = await pool.acquire(entry('three'));
    expect(closed).toEqual([two.registry]);
    expect(pool.list()).toEqual([one, three]);
  });

  it('close stops every instance', async () => {
    newPool();
    const a = await pool.acquire(entry('prod'));
    const b = await pool.acquire(entry('dev'));
    await pool.close();
    expect(closed).toEqual([a.registry, b.registry]);
    expect(pool.list()).toEqual([]);
  });
});
