/**
 * Consent through the host that runs mcpx (seed 004, issue 25 item 4): when
 * `mcpx serve`'s client declared form elicitation, a call the `trusted` policy
 * would put to a person is asked through that client — the connection
 * question (allow all / confirm each / deny), then per call (once / always /
 * deny) — in both eras. The answers are the session's: another session is
 * asked afresh. A client without elicitation is refused as before, and an
 * upstream's own elicitation during the call is never taken for the answer.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

const backendPath = join(repoRoot, 'dist/testing/conformance-backend.js');
type Era = 'legacy' | 'modern';

let world: GatewayWorld;
const clients: Client[] = [];

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'trusted',
    mcpServers: {
      // Its tools say nothing of themselves (no readOnlyHint), so every call is the person's to decide.
      local: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_ANNOTATED: '0' } },
      old: { command: process.execPath, args: [backendPath], protocol: 'legacy' },
      new: { command: process.execPath, args: [backendPath], protocol: 'modern' },
      rug: { command: process.execPath, args: [join(repoRoot, 'test/fixtures/rug-pull-server.mjs')] },
    },
  });
}, 60_000);

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await world.stopAll();
});
afterAll(() => world?.close());

/** What the client was asked: `connect`/`call` for mcpx's consent forms (with their message), `upstream` otherwise. */
interface Asked {
  readonly kind: 'connect' | 'call' | 'upstream';
  readonly message: string;
}

/**
 * The client's person: mcpx's consent forms (a `decision` field) are answered
 * from `answers` in order (a string accepts it, an object is the whole result),
 * an upstream's own form with a name.
 */
function person(client: Client, answers: (string | { action: 'decline' | 'cancel' })[]): Asked[] {
  const asked: Asked[] = [];
  type Answer = { action: 'accept'; content: Record<string, string> } | { action: 'decline' | 'cancel' };
  client.setRequestHandler('elicitation/create', async (request): Promise<Answer> => {
    const params = request.params as { message: string; requestedSchema?: { properties?: object } };
    const properties = params.requestedSchema?.properties ?? {};
    if (!('decision' in properties)) {
      asked.push({ kind: 'upstream', message: params.message });
      return { action: 'accept', content: { name: 'Ada' } };
    }
    asked.push({ kind: params.message.includes('to be used') ? 'connect' : 'call', message: params.message });
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`asked more than the test expected: ${params.message}`);
    if (typeof answer !== 'string') return answer;
    return { action: 'accept', content: { decision: answer } };
  });
  return asked;
}

async function stdioClient(era: Era, elicitation = true): Promise<Client> {
  const client = new Client(
    { name: 'consent-test', version: '0.0.0' },
    {
      versionNegotiation: era === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } },
      ...(elicitation ? { capabilities: { elicitation: { form: {} } } } : {}),
    },
  );
  clients.push(client);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [cliPath, '--config', world.configFile, 'serve'],
      env: { PATH: process.env.PATH ?? '', HOME: world.home, MCPX_HOME: `${world.home}/.mcpx` },
      cwd: world.dir,
      stderr: 'pipe',
    }),
  );
  return client;
}

const echo = (client: Client, message: string) =>
  client.callTool({ name: 'local__echo', arguments: { message } });

describe.each(['legacy', 'modern'] as const)('a %s client that declared elicitation', (era) => {
  it('allowing all tools of a server is asked once: the next call runs unasked', async () => {
    const client = await stdioClient(era);
    const asked = person(client, ['allow-all']);
    expect(firstText(await echo(client, 'one'))).toBe('one');
    expect(firstText(await client.callTool({ name: 'local__add', arguments: { a: 2, b: 3 } }))).toContain(
      '5',
    );
    expect(asked.map((a) => a.kind)).toEqual(['connect']);
    expect(asked[0]?.message).toContain("MCP server 'local'");
    expect(asked[0]?.message).toMatch(/Tools: .*echo.*add/);
  });

  it('confirm each call: each call is asked; "once" allows that call, "always" the server for the session', async () => {
    const client = await stdioClient(era);
    const asked = person(client, ['confirm-each', 'once', 'once', 'always']);
    expect(firstText(await echo(client, 'first'))).toBe('first');
    expect(firstText(await echo(client, 'second'))).toBe('second');
    expect(firstText(await echo(client, 'third'))).toBe('third');
    expect(firstText(await echo(client, 'fourth'))).toBe('fourth');
    expect(asked.map((a) => a.kind)).toEqual(['connect', 'call', 'call', 'call']);
    const question = asked[1]?.message ?? '';
    expect(question).toContain("'echo' of 'local'");
    expect(question).toContain('Arguments: {"message":"first"}');
  });

  it('denying the server refuses the call and every later one of that server, unasked', async () => {
    const client = await stdioClient(era);
    const asked = person(client, ['deny']);
    const refused = await echo(client, 'no');
    expect(refused.isError).toBe(true);
    expect(firstText(refused)).toContain("using 'local' was denied for this session");
    const again = await client.callTool({ name: 'local__add', arguments: { a: 1, b: 1 } });
    expect(again.isError).toBe(true);
    expect(asked.map((a) => a.kind)).toEqual(['connect']);
  });

  it('a declined call is refused and asked again next time; a denied call is refused', async () => {
    const client = await stdioClient(era);
    const asked = person(client, ['confirm-each', { action: 'decline' }, 'deny', 'once']);
    const declined = await echo(client, 'a');
    expect(declined.isError).toBe(true);
    expect(firstText(declined)).toContain('the person declined');
    const denied = await echo(client, 'b');
    expect(denied.isError).toBe(true);
    expect(firstText(denied)).toContain('the call was not allowed');
    expect(firstText(await echo(client, 'c'))).toBe('c');
    expect(asked.map((a) => a.kind)).toEqual(['connect', 'call', 'call', 'call']);
  });

  it('a tool whose definition changed after "allow all" is asked again, and denying it refuses the call', async () => {
    const client = await stdioClient(era);
    const asked = person(client, ['allow-all', 'deny']);
    expect(firstText(await client.callTool({ name: 'rug__read', arguments: {} }))).toBe('file contents');
    expect(firstText(await client.callTool({ name: 'rug__rug_pull', arguments: {} }))).toBe('done');
    const refused = await client.callTool({ name: 'rug__read', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(firstText(refused)).toContain('its definition changed since it was approved');
    expect(asked.map((a) => a.kind)).toEqual(['connect', 'call']);
    expect(asked[1]?.message).toMatch(/definition of 'read' of 'rug' changed since it was approved/);
    expect(asked[1]?.message).toContain('attacker.example');
  });

  it.each(['old', 'new'] as const)(
    "an upstream's own elicitation (%s era) comes after the consent and does not answer for the person",
    async (upstream) => {
      const client = await stdioClient(era);
      const asked = person(client, ['confirm-each', 'once', 'deny']);
      const tool = `${upstream}__test_input_required_result_elicitation`;
      expect(firstText(await client.callTool({ name: tool, arguments: {} }))).toBe('Hello, Ada!');
      expect(asked.map((a) => a.kind)).toEqual(['connect', 'call', 'upstream']);
      // The upstream's accepted form did not allow the next call: the person is asked, and denies.
      const refused = await client.callTool({ name: tool, arguments: {} });
      expect(refused.isError).toBe(true);
      expect(asked.map((a) => a.kind)).toEqual(['connect', 'call', 'upstream', 'call']);
    },
  );
});

describe.each(['legacy', 'modern'] as const)('a %s client without elicitation', (era) => {
  it('is refused with how to allow it, as before', async () => {
    const client = await stdioClient(era, false);
    const refused = await echo(client, 'no');
    expect(refused.isError).toBe(true);
    expect(firstText(refused)).toBe(
      "mcpx refused 'echo' of 'local': permission 'trusted' asks a person before a server is used, " +
        'and the gateway has nobody to ask. To allow it, restart the gateway with `--allow local` ' +
        '(every tool of that server) or `--permission yolo`, or set "permission": "yolo" in your mcpx config.',
    );
  });
});

it('two sessions of one gateway: one session\'s "allow all" does not allow the other\'s calls', async () => {
  const gateway = await world.serve();
  const first = await world.client(gateway.url, 'legacy', { capabilities: { elicitation: { form: {} } } });
  const second = await world.client(gateway.url, 'legacy', { capabilities: { elicitation: { form: {} } } });
  const firstAsked = person(first, ['allow-all']);
  const secondAsked = person(second, ['deny']);
  expect(firstText(await echo(first, 'mine'))).toBe('mine');
  const refused = await echo(second, 'theirs');
  expect(refused.isError).toBe(true);
  expect(firstText(await echo(first, 'still mine'))).toBe('still mine');
  expect(firstAsked.map((a) => a.kind)).toEqual(['connect']);
  expect(secondAsked.map((a) => a.kind)).toEqual(['connect']);
});

describe('a 2026-07-28 client over HTTP, which has no session', () => {
  it('is asked in input_required rounds; its answers hold for that client, not for another', async () => {
    const gateway = await world.serve();
    const capabilities = { elicitation: { form: {} } };
    const client = await world.client(gateway.url, 'modern', { capabilities });
    const asked = person(client, ['confirm-each', 'once', 'always']);
    expect(firstText(await echo(client, 'one'))).toBe('one');
    expect(firstText(await echo(client, 'two'))).toBe('two');
    // "always" covers the server for this client from now on: no request of its asks again.
    expect(firstText(await echo(client, 'three'))).toBe('three');
    expect(firstText(await client.callTool({ name: 'local__add', arguments: { a: 1, b: 2 } }))).toContain(
      '3',
    );
    expect(asked.map((a) => a.kind)).toEqual(['connect', 'call', 'call']);
    // Other credentials are another client: asked afresh, and its "deny" is its own.
    const other = await world.client(gateway.url, 'modern', {
      capabilities,
      headers: { authorization: 'Bearer someone-else' },
    });
    const otherAsked = person(other, ['deny']);
    expect((await echo(other, 'no')).isError).toBe(true);
    expect((await echo(other, 'still no')).isError).toBe(true);
    expect(otherAsked.map((a) => a.kind)).toEqual(['connect']);
    expect(firstText(await echo(client, 'four'))).toBe('four');
  });

  it("a 2026-07-28 upstream's rounds after the consent pass statelessly, without asking the person again", async () => {
    const gateway = await world.serve();
    const client = await world.client(gateway.url, 'modern', { capabilities: { elicitation: { form: {} } } });
    const asked = person(client, ['confirm-each', 'once']);
    const result = await client.callTool({
      name: 'new__test_input_required_result_elicitation',
      arguments: {},
    });
    expect(firstText(result)).toBe('Hello, Ada!');
    expect(asked.map((a) => a.kind)).toEqual(['connect', 'call', 'upstream']);
  });
});

interface Round {
  resultType?: string;
  inputRequests?: Record<string, { params?: { message?: string } }>;
  requestState?: string;
  content?: { text?: string }[];
}

it('two instances sharing --state-key-file: the consent rounds are sealed, so each retry may reach either', async () => {
  const keyFile = join(world.dir, 'state.key');
  await writeFile(keyFile, randomBytes(32), { mode: 0o600 });
  const instances = [
    (await world.serve(['--state-key-file', keyFile])).url,
    (await world.serve(['--state-key-file', keyFile])).url,
  ];
  let target = instances[0] as string;
  const client = new Client(
    { name: 'balanced', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    },
  );
  clients.push(client);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(target), { fetch: (_url, init) => fetch(target, init) }),
  );
  const call = (retry?: { state?: string; answer: string }) =>
    client.request(
      {
        method: 'tools/call',
        params: {
          name: 'local__echo',
          arguments: { message: 'balanced' },
          ...(retry?.state ? { requestState: retry.state } : {}),
          ...(retry
            ? {
                inputResponses: { 'mcpx-consent': { action: 'accept', content: { decision: retry.answer } } },
              }
            : {}),
        },
      },
      { allowInputRequired: true },
    ) as Promise<Round>;

  // An answer sent before anything was asked is not taken for the person's.
  const unasked = await call({ answer: 'allow-all' });
  expect(unasked.resultType).toBe('input_required');
  const connect = await call();
  expect(Object.keys(connect.inputRequests ?? {})).toEqual(['mcpx-consent']);
  expect(connect.inputRequests?.['mcpx-consent']?.params?.message).toContain("MCP server 'local'");
  target = instances[1] as string;
  const perCall = await call({ state: connect.requestState as string, answer: 'confirm-each' });
  expect(perCall.resultType).toBe('input_required');
  expect(perCall.inputRequests?.['mcpx-consent']?.params?.message).toContain("'echo' of 'local'");
  target = instances[0] as string;
  const done = await call({ state: perCall.requestState as string, answer: 'once' });
  expect(done.content?.[0]?.text).toBe('balanced');
});
