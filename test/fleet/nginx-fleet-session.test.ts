/**
 * A 2025-11-25 session continued after failover keeps what its client set in it (issue 43):
 * three `mcpx serve --http --state` instances behind nginx (docs/nginx-fleet.conf) on one Redis.
 * The person's consent answers given on the instance that held the session, its log level and its
 * resource subscriptions hold on the instance that continues the session once the first is killed
 * (SIGKILL); another session, or the same session id with other credentials, is asked afresh.
 */
import { join } from 'node:path';
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_KEPT_SUBSCRIPTIONS } from '../../src/gateway/http/session-settings.js';
import { testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';
import { documentedHttpBlock, findNginx, type RunningNginx, startNginx } from '../helpers/nginx.js';
import { messageOf, postToolCall, sseEvents } from '../helpers/raw-session.js';
import { redisEachTest, stateKeyArgs } from '../helpers/redis.js';

const INSTANCES = ['a', 'b', 'c'] as const;
const PORTS = { a: '8801', b: '8802', c: '8803' } as const;
/** Every call the person's to decide (consent), and every call let through (settings). */
let asking: GatewayWorld;
let open: GatewayWorld;
let world: GatewayWorld;
let nginx: RunningNginx | undefined;
const gateways = new Map<string, RunningGateway>();
const store = redisEachTest(async () => {
  // The clients first (their streams end), then nginx: it waits for none.
  await Promise.all([asking.stopAll(), open.stopAll()]);
  gateways.clear();
  const left = (await nginx?.stop()) ?? [];
  nginx = undefined;
  // The workers are nginx's children, not ours: the master must have taken them down.
  expect(left, 'nginx workers that outlived the test').toEqual([]);
});

beforeAll(async () => {
  findNginx();
  [asking, open] = await Promise.all([
    gatewayWorld({
      permission: 'trusted',
      mcpServers: {
        // Its tools say nothing of themselves (no readOnlyHint), so every call is the person's to decide.
        local: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_ANNOTATED: '0' } },
      },
    }),
    gatewayWorld({
      permission: 'yolo',
      mcpServers: { local: { command: process.execPath, args: [testServerPath] } },
    }),
  ]);
}, 60_000);
afterAll(async () => Promise.all([asking?.close(), open?.close()]));

// What the instances and nginx said, when a test failed.
afterEach(async (context) => {
  if (context.task.result?.state !== 'fail') return;
  const said = [...gateways].map(([id, g]) => `--- instance ${id}:\n${g.stderr().slice(-2_000)}`);
  const log = (await nginx?.errorLog()) ?? '';
  context.task.result.errors?.push({ message: `${said.join('\n')}\n--- nginx:\n${log.slice(-2_000)}` });
});

/** Three instances of `config` on this test's Redis, and nginx in front of them: nginx's `/mcp`. */
async function fleetBehindNginx(config: GatewayWorld): Promise<string> {
  world = config;
  const keyArgs = stateKeyArgs(world.dir);
  await Promise.all(
    INSTANCES.map(async (id) => {
      const args = ['--port', '0', '--instance-id', id, '--state', store().url, ...keyArgs];
      gateways.set(id, await world.serve(args));
    }),
  );
  const httpBlock = (port: number) => {
    let block = documentedHttpBlock(join(import.meta.dirname, '../../docs/nginx-fleet.conf')).replace(
      'listen 8800;',
      `listen 127.0.0.1:${port};`,
    );
    for (const id of INSTANCES)
      block = block.replaceAll(`127.0.0.1:${PORTS[id]}`, `127.0.0.1:${new URL(gatewayOf(id).url).port}`);
    return `  access_log off;\n${block}`;
  };
  nginx = await startNginx({ prefix: join(world.dir, `nginx-${Date.now()}`), http: httpBlock });
  return nginx.url;
}

const gatewayOf = (id: string) => gateways.get(id) as RunningGateway;

/** A 2025-11-25 client through nginx with form elicitation, known by its bearer token. */
function client(url: string, token: string): Promise<Client> {
  return world.client(url, 'legacy', {
    capabilities: { elicitation: { form: {} } },
    headers: { authorization: `Bearer ${token}` },
  });
}

const sessionOf = (c: Client) => (c.transport as StreamableHTTPClientTransport).sessionId as string;

/** The client's person: each consent question answered from `answers` in order, and counted. */
function person(c: Client, answers: string[]): string[] {
  const asked: string[] = [];
  c.setRequestHandler('elicitation/create', async (request) => {
    const message = (request.params as { message: string }).message;
    asked.push(message.includes('to be used') ? 'connect' : 'call');
    const answer = answers.shift();
    if (answer === undefined) return { action: 'decline' };
    return { action: 'accept', content: { decision: answer } };
  });
  return asked;
}

/** Kill (SIGKILL) the instance that minted the session: nginx then sends it to another. */
async function killHolder(session: string): Promise<void> {
  const holder = gatewayOf(session.split('.')[0] as string);
  holder.child.kill('SIGKILL');
  await holder.exited;
}

const echo = (c: Client, message: string) => c.callTool({ name: 'local__echo', arguments: { message } });

describe('a 2025-11-25 session continued on another instance after its own was killed (nginx)', () => {
  it('is not asked again for consent its person gave; another session, or other credentials, is', async () => {
    const url = await fleetBehindNginx(asking);
    const alice = await client(url, 'alice');
    const asked = person(alice, ['allow-all']);
    expect(firstText(await echo(alice, 'before'))).toBe('before');
    expect(asked).toEqual(['connect']);
    const session = sessionOf(alice);

    await killHolder(session);
    expect(firstText(await echo(alice, 'after'))).toBe('after');
    expect(asked, 'asked again after the failover').toEqual(['connect']);

    // Another session of the same credentials is another person's consent: asked.
    const other = await client(url, 'alice');
    const otherAsked = person(other, ['deny']);
    expect((await echo(other, 'no')).isError).toBe(true);
    expect(otherAsked).toEqual(['connect']);

    // The same session id with other credentials rides on nothing: its call is put to the
    // session's person (who declines now), never let through on Alice's "allow all".
    const mallory = await postToolCall(url, session, {
      id: 41,
      name: 'local__echo',
      arguments: { message: 'mallory' },
      headers: { authorization: 'Bearer mallory' },
    });
    expect(mallory.status).toBe(200);
    let answer: ReturnType<typeof messageOf>;
    for await (const event of sseEvents(mallory)) {
      answer = messageOf(event);
      if (answer?.id === 41) break;
    }
    expect(firstText(answer?.result)).toMatch(/refused 'echo' of 'local': the person declined/);
    expect(asked).toEqual(['connect', 'connect']);

    // The session's DELETE (on the instance now serving it) ends its person's answers in the store.
    const answersKept = () =>
      store()
        .cli(['--scan', '--pattern', 'mcpx:consent:*'])
        .split('\n')
        .filter((key) => key && key !== 'mcpx:consent:clients').length;
    const before = answersKept();
    await (alice.transport as StreamableHTTPClientTransport).terminateSession();
    expect(answersKept()).toBe(before - 1);
  }, 60_000);

  it('keeps the log level its client set', async () => {
    const url = await fleetBehindNginx(open);
    const c = await client(url, 'bob');
    const logs: unknown[] = [];
    c.setNotificationHandler('notifications/message', (n) => {
      logs.push(n.params.data);
    });
    await c.setLoggingLevel('warning');
    const log = (message: string, level: string) =>
      c.callTool({ name: 'local__log', arguments: { message, level } });
    // Before the failover the level holds (and the test sees a log at all).
    await log('quiet before', 'info');
    await log('loud before', 'warning');
    expect(logs).toEqual(['loud before']);

    await killHolder(sessionOf(c));
    await log('quiet after', 'info');
    await log('loud after', 'warning');
    expect(logs).toEqual(['loud before', 'loud after']);
  }, 60_000);

  it('keeps the resource subscription its client made', async () => {
    const url = await fleetBehindNginx(open);
    const c = await client(url, 'carol');
    const updated: string[] = [];
    c.setNotificationHandler('notifications/resources/updated', (n) => {
      updated.push(n.params.uri);
    });
    await c.subscribeResource({ uri: 'mcpx://local/test://counter' });
    const touchedUntilTold = async () => {
      updated.length = 0;
      for (let i = 0; i < 50 && updated.length === 0; i++) {
        await c.callTool({ name: 'local__touch_resource', arguments: {} });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return updated;
    };
    expect(await touchedUntilTold()).toContain('mcpx://local/test://counter');

    // An update upstream of the instance now serving the session reaches the client (on its
    // standalone stream, which the client opens again after the kill).
    await killHolder(sessionOf(c));
    expect(await touchedUntilTold()).toContain('mcpx://local/test://counter');
  }, 90_000);

  it('refuses a subscription past the most the fleet carries for a session, saying so', async () => {
    const url = await fleetBehindNginx(open);
    const c = await client(url, 'dave');
    const uri = (i: number) => `mcpx://local/test://n/${i}`;
    for (let i = 0; i < MAX_KEPT_SUBSCRIPTIONS; i++) await c.subscribeResource({ uri: uri(i) });
    // The same URI again is no new subscription; one more is refused, with what to do.
    await c.subscribeResource({ uri: uri(0) });
    await expect(c.subscribeResource({ uri: uri(MAX_KEPT_SUBSCRIPTIONS) })).rejects.toThrow(
      /already holds 256 resource subscriptions.*unsubscribe from one first/,
    );
    await c.unsubscribeResource({ uri: uri(0) });
    await c.subscribeResource({ uri: uri(MAX_KEPT_SUBSCRIPTIONS) });
  }, 90_000);
});
