/**
 * `mcpx serve --http --state redis://…`: an instance of a fleet connects to the shared store
 * before it serves, refuses to start without it (saying where and how to fix it), and says in
 * `/healthz` whether the store answers — through an outage and back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';
import { redisEachTest, stateKeyArgs } from '../helpers/redis.js';

let world: GatewayWorld;
const store = redisEachTest(() => world.stopAll());

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: { test: { command: process.execPath, args: [testServerPath] } },
  });
});
afterAll(async () => world?.close());

async function health(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(new URL('/healthz', url));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('mcpx serve --state', () => {
  it('connects before serving and says in /healthz that the store answers, through an outage and back', async () => {
    const gateway = await world.serve([
      '--port',
      '0',
      '--instance-id',
      'a',
      '--state',
      store().url,
      ...stateKeyArgs(world.dir),
    ]);
    const where = `redis://127.0.0.1:${store().port}`;
    expect(await health(gateway.url)).toEqual({
      status: 200,
      body: { ok: true, state: { store: where, up: true, limits: 'fleet' } },
    });

    await store().stop();
    await until(
      async () => ((await health(gateway.url)).body.state as { up: boolean }).up === false,
      'the store down',
    );
    const down = await health(gateway.url);
    // Alive (a liveness probe must not restart the fleet), but the store is named as down, with why.
    expect(down.status).toBe(200);
    expect(down.body.state).toMatchObject({ store: where, up: false, error: expect.any(String) });

    await store().start();
    await until(async () => ((await health(gateway.url)).body.state as { up: boolean }).up, 'the store back');
  });

  it('does not start when the store cannot be reached, and says where and how to fix it', async () => {
    await store().stop();
    const failed = world.serve(['--port', '0', '--state', store().url, ...stateKeyArgs(world.dir)]);
    await expect(failed).rejects.toThrow(/exited \(4\)/);
    const message = String(await failed.catch((error: Error) => error.message));
    expect(message).toContain(`cannot reach the fleet's shared state at redis://127.0.0.1:${store().port}`);
    expect(message).toContain('leave out --state');
    expect(message).not.toMatch(/\n\s+at /);
  });

  it('asks for the fleet key with --state: what the instances store is signed with it', async () => {
    const failed = world.serve(['--port', '0', '--state', store().url]);
    const message = String(await failed.catch((error: Error) => error.message));
    expect(message).toMatch(/exited \(1\)/);
    expect(message).toContain(
      '--state shares consent answers, sessions and streams through Redis: it needs --state-key-file',
    );
    expect(message).toContain('head -c 32 /dev/urandom');
  });

  it('refuses a URL that is not redis://, never showing its password', async () => {
    const failed = world.serve([
      '--port',
      '0',
      '--state',
      'http://user:hunter2@127.0.0.1:6379',
      ...stateKeyArgs(world.dir),
    ]);
    const message = String(await failed.catch((error: Error) => error.message));
    expect(message).toContain("--state takes a redis:// or rediss:// URL, got 'http://127.0.0.1:6379'");
    expect(message).not.toContain('hunter2');
  });
});
