/**
 * Consent across a fleet (issue 43): three `mcpx serve --http --state` instances on one real
 * Redis, a 2026-07-28 client talking to each directly. The answer its person gave through one
 * instance is honoured through the others without asking; other credentials are another client,
 * asked afresh. With the store down, nothing is granted silently: the person is asked again, the
 * instance says the answer was not shared, and `/healthz` says the store is down; with it back,
 * answers are shared again.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';
import { redisEachTest } from '../helpers/redis.js';

let world: GatewayWorld;
const store = redisEachTest(() => world.stopAll());
let keyFile: string;

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'trusted',
    mcpServers: {
      // Its tools say nothing of themselves (no readOnlyHint), so every call is the person's to decide.
      local: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_ANNOTATED: '0' } },
    },
  });
  keyFile = join(world.dir, 'state.key');
  await writeFile(keyFile, randomBytes(32), { mode: 0o600 });
}, 60_000);
afterAll(async () => world?.close());

type Fleet = [RunningGateway, RunningGateway, RunningGateway];

async function fleet(): Promise<Fleet> {
  const serve = (id: string) =>
    world.serve(['--port', '0', '--instance-id', id, '--state', store().url, '--state-key-file', keyFile]);
  return Promise.all([serve('a'), serve('b'), serve('c')]);
}

/** The client's person: each consent question answered from `answers` in order, and counted. */
function person(client: Client, answers: string[], messages: string[] = []): string[] {
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    const message = (request.params as { message: string }).message;
    messages.push(message);
    asked.push(message.includes('to be used') ? 'connect' : 'call');
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`asked more than the test expected: ${message}`);
    return { action: 'accept', content: { decision: answer } };
  });
  return asked;
}

/** A 2026-07-28 client of `url` with form elicitation, known by its bearer token. */
async function client(url: string, token: string): Promise<Client> {
  return world.client(url, 'modern', {
    capabilities: { elicitation: { form: {} } },
    headers: { authorization: `Bearer ${token}` },
  });
}

const echo = (c: Client, message: string) => c.callTool({ name: 'local__echo', arguments: { message } });

async function storeUp(url: string): Promise<boolean> {
  const body = (await (await fetch(new URL('/healthz', url))).json()) as { state?: { up?: boolean } };
  return body.state?.up === true;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('consent shared by a fleet (--state)', () => {
  it('an answer given through A is honoured through B and C without asking; other credentials are asked afresh', async () => {
    const [a, b, c] = await fleet();
    const throughA = await client(a.url, 'alice');
    const askedA = person(throughA, ['allow-all']);
    expect(firstText(await echo(throughA, 'one'))).toBe('one');
    expect(askedA).toEqual(['connect']);

    for (const instance of [b, c]) {
      const same = await client(instance.url, 'alice');
      const asked = person(same, []);
      expect(firstText(await echo(same, 'again'))).toBe('again');
      expect(asked).toEqual([]);
    }

    // Bob's "deny" through C is his own, and holds through A; Alice's "allow all" is not his.
    const bobC = await client(c.url, 'bob');
    const askedBobC = person(bobC, ['deny']);
    expect((await echo(bobC, 'no')).isError).toBe(true);
    expect(askedBobC).toEqual(['connect']);
    const bobA = await client(a.url, 'bob');
    const bobAsked = person(bobA, []);
    expect((await echo(bobA, 'still no')).isError).toBe(true);
    expect(bobAsked).toEqual([]);
    // What the store holds is bounded in time: every key the consent wrote expires.
    const keys = store().cli(['--scan', '--pattern', 'mcpx:consent:*']).split('\n').filter(Boolean);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(Number(store().cli(['PTTL', key]))).toBeGreaterThan(0);
  });

  it('store down: asked again, told it was not shared, /healthz down; store back: shared again', async () => {
    const [a, b, c] = await fleet();
    const throughA = await client(a.url, 'carol');
    const askedA = person(throughA, ['allow-all']);
    expect(firstText(await echo(throughA, 'before'))).toBe('before');
    expect(askedA).toEqual(['connect']);

    await store().stop();
    await until(async () => !(await storeUp(b.url)), 'B to see the store down');
    // B cannot read the answer given through A: not known here, so the person is asked (no grant).
    const throughB = await client(b.url, 'carol');
    const questions: string[] = [];
    const askedB = person(throughB, ['deny'], questions);
    expect((await echo(throughB, 'while down')).isError).toBe(true);
    expect(askedB).toEqual(['connect']);
    // The person is told why they are asked again.
    expect(questions[0]).toContain('an earlier answer could not be read');
    await expect
      .poll(() => b.stderr(), { timeout: 5_000 })
      .toMatch(/could not be read from the fleet's shared state/);
    await expect.poll(() => b.stderr(), { timeout: 5_000 }).toMatch(/was not shared with the fleet/);

    await store().start();
    await until(async () => (await storeUp(a.url)) && (await storeUp(c.url)), 'the store back');
    // The restarted store is empty (nothing saved): asked once through C, then shared again.
    const throughC = await client(c.url, 'carol');
    const askedC = person(throughC, ['allow-all']);
    expect(firstText(await echo(throughC, 'back'))).toBe('back');
    expect(askedC).toEqual(['connect']);
    const againA = await client(a.url, 'carol');
    const askedAgainA = person(againA, []);
    expect(firstText(await echo(againA, 'shared again'))).toBe('shared again');
    expect(askedAgainA).toEqual([]);
  });

  it("an answer copied in Redis onto another client's key is not believed: that client is asked, not let through", async () => {
    const [a, b] = await fleet();
    const consentKeys = () =>
      store()
        .cli(['--scan', '--pattern', 'mcpx:consent:*'])
        .split('\n')
        .filter((key) => key && key !== 'mcpx:consent:clients');
    const alice = await client(a.url, 'alice');
    person(alice, ['allow-all']);
    expect(firstText(await echo(alice, 'hi'))).toBe('hi');
    const [aliceKey] = consentKeys();
    const bob = await client(a.url, 'bob');
    const bobAsked = person(bob, ['deny']);
    expect((await echo(bob, 'no')).isError).toBe(true);
    expect(bobAsked).toEqual(['connect']);
    const bobKey = consentKeys().find((key) => key !== aliceKey) as string;
    // Whoever can write to Redis copies Alice's "allow all" over Bob's "deny".
    const granted = store().cli(['HGET', aliceKey as string, 'c:local']);
    expect(granted).toContain('allow-all');
    store().cli(['HSET', bobKey, 'c:local', granted]);
    const bobOnB = await client(b.url, 'bob');
    const askedOnB = person(bobOnB, ['deny']);
    expect((await echo(bobOnB, 'still no')).isError).toBe(true);
    expect(askedOnB).toEqual(['connect']);
    await expect
      .poll(() => b.stderr(), { timeout: 5_000 })
      .toMatch(/holds consent answers that are not this fleet's/);
  });
});
