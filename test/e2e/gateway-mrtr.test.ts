/**
 * An upstream's questions during a call (elicitation, sampling) reach the
 * client that made the call through `mcpx serve`, in every pairing of eras:
 * a 2025-11-25 upstream asks with server→client requests, a 2026-07-28 one
 * with `input_required` results; a 2025 client is asked on its session, a
 * 2026-07-28 client in `input_required` rounds (roots too, and -32021 for a
 * client that cannot answer). The upstream is the
 * conformance backend pinned to one era per configured server.
 */
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, gatewayPathEnv, repoRoot } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

const backendPath = join(repoRoot, 'dist/testing/conformance-backend.js');

let world: GatewayWorld;

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: {
      old: { command: process.execPath, args: [backendPath], protocol: 'legacy' },
      new: { command: process.execPath, args: [backendPath], protocol: 'modern' },
    },
  });
}, 60_000);

afterEach(() => world.stopAll());
afterAll(() => world?.close());

/** A client of one era whose handlers answer elicitation with a name and sampling with a capital. */
async function answeringClient(
  url: string,
  era: 'legacy' | 'modern',
): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = await world.client(url, era, {
    capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} },
  });
  client.setRequestHandler('roots/list', async () => {
    asked.push('roots');
    return {
      roots: [
        { uri: 'file:///work/a', name: 'a' },
        { uri: 'file:///work/b', name: 'b' },
      ],
    };
  });
  client.setRequestHandler('elicitation/create', async () => {
    asked.push('elicitation');
    return { action: 'accept', content: { name: `Ada-${era}` } };
  });
  client.setRequestHandler('sampling/createMessage', async () => {
    asked.push('sampling');
    return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'Paris' } };
  });
  return { client, asked };
}

describe.each(['old', 'new'] as const)('a %s-era upstream asking during a call', (upstream) => {
  it.each(['legacy', 'modern'] as const)('is answered by the calling %s client', async (era) => {
    const gateway = await world.serve();
    const { client, asked } = await answeringClient(gateway.url, era);
    const elicited = await client.callTool({
      name: `${upstream}__test_input_required_result_elicitation`,
      arguments: {},
    });
    expect(firstText(elicited)).toBe(`Hello, Ada-${era}!`);
    const sampled = await client.callTool({
      name: `${upstream}__test_input_required_result_sampling`,
      arguments: {},
    });
    expect(firstText(sampled)).toBe('Sampling result: Paris');
    const rooted = await client.callTool({
      name: `${upstream}__test_input_required_result_list_roots`,
      arguments: {},
    });
    expect(firstText(rooted)).toBe('Found 2 root(s)');
    expect(asked).toEqual(['elicitation', 'sampling', 'roots']);
  });

  it.each(['legacy', 'modern'] as const)(
    'tells a %s client that cannot answer that it lacks the capability (-32021)',
    async (era) => {
      const gateway = await world.serve();
      const client = await world.client(gateway.url, era, { capabilities: { sampling: {} } });
      const error = await client
        .callTool({ name: `${upstream}__test_input_required_result_elicitation`, arguments: {} })
        .then(
          (result) => ({ result }),
          (e: { code?: number; data?: unknown }) => e,
        );
      if (upstream === 'old' && era === 'legacy') {
        // The gateway answers the upstream's elicitation/create with -32021; this upstream (the
        // SDK's legacy shim) reports that to its caller as a tool error, which passes through.
        expect(error).toMatchObject({ result: { isError: true } });
        expect(firstText((error as { result: unknown }).result)).toMatch(
          /Missing required client capabilities: elicitation/,
        );
        return;
      }
      expect(error).toMatchObject({ code: -32021 });
      expect(JSON.stringify((error as { data?: unknown }).data)).toMatch(/elicitation/);
    },
  );
});

describe('mcpx serve on stdio', () => {
  it('takes a 2026-07-28 client through the rounds of both upstreams on its one connection', async () => {
    const client = new Client(
      { name: 'stdio-client', version: '1.0.0' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        capabilities: { elicitation: { form: {} } },
      },
    );
    const answers: Record<string, string> = { name: 'Stdio', color: 'blue' };
    client.setRequestHandler('elicitation/create', async (request) => {
      const schema = (request.params as { requestedSchema: { properties: Record<string, unknown> } })
        .requestedSchema;
      const [field] = Object.keys(schema.properties);
      return { action: 'accept', content: { [field as string]: answers[field as string] ?? '' } };
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, '--config', world.configFile, 'serve'],
        env: {
          PATH: process.env.PATH ?? '',
          HOME: world.home,
          MCPX_HOME: `${world.home}/.mcpx`,
          ...gatewayPathEnv(),
        },
        cwd: world.dir,
        stderr: 'pipe',
      }),
    );
    try {
      for (const upstream of ['old', 'new']) {
        const result = await client.callTool({
          name: `${upstream}__test_input_required_result_multi_round`,
          arguments: {},
        });
        expect(firstText(result)).toBe('Multi-round complete for Stdio who likes blue');
      }
    } finally {
      await client.close();
    }
  });
});

/** A 2026-07-28 client that handles `input_required` itself, so the test holds the request state. */
async function manualClient(url: string, name: string): Promise<Client> {
  const client = new Client(
    { name, version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

interface Round {
  resultType?: string;
  inputRequests?: Record<string, unknown>;
  requestState?: string;
  content?: { text?: string }[];
}

const call = (client: Client, name: string, retry?: { state: string; key: string; answer: string }) =>
  client.request(
    {
      method: 'tools/call',
      params: {
        name,
        arguments: {},
        ...(retry
          ? {
              requestState: retry.state,
              inputResponses: { [retry.key]: { action: 'accept', content: { name: retry.answer } } },
            }
          : {}),
      },
    },
    { allowInputRequired: true },
  ) as Promise<Round>;

describe.each(['old', 'new'] as const)('the request state of a %s-era upstream question', (upstream) => {
  const tool = `${upstream}__test_input_required_result_elicitation`;

  it('cannot be used by another client, nor once used (parked) or on another call (sealed)', async () => {
    const gateway = await world.serve();
    const alice = await manualClient(gateway.url, 'alice');
    const mallory = await manualClient(gateway.url, 'mallory');
    try {
      const first = await call(alice, tool);
      expect(first.resultType).toBe('input_required');
      const [key] = Object.keys(first.inputRequests ?? {});
      const state = first.requestState as string;
      expect(key).toBeDefined();
      expect(state.length).toBeGreaterThanOrEqual(40);
      // Another client holding the state is refused, and its answer never reaches the upstream:
      await expect(call(mallory, tool, { state, key: key as string, answer: 'Mallory' })).rejects.toThrow(
        /requestState/,
      );
      // ...since the owner's own answer is the one the upstream gets.
      const done = await call(alice, tool, { state, key: key as string, answer: 'Alice' });
      expect(done.content?.[0]?.text).toBe('Hello, Alice!');
      if (upstream === 'old') {
        // A parked call's state is single use: the same state again is refused with an error that says why.
        await expect(call(alice, tool, { state, key: key as string, answer: 'Alice' })).rejects.toThrow(
          /requestState.*(used|expired)/,
        );
      } else {
        // A 2026-07-28 upstream's round is sealed, not parked: the owner sending the same retry again
        // resends the same request (as calling again would)...
        const again = await call(alice, tool, { state, key: key as string, answer: 'Alice' });
        expect(again.content?.[0]?.text).toBe('Hello, Alice!');
        // ...but the state is bound to the call's arguments: it cannot be moved onto another call.
        await expect(
          alice.request(
            {
              method: 'tools/call',
              params: {
                name: tool,
                arguments: { other: true },
                requestState: state,
                inputResponses: { [key as string]: { action: 'accept', content: { name: 'Alice' } } },
              },
            },
            { allowInputRequired: true },
          ),
        ).rejects.toThrow(/call again without requestState/);
      }
    } finally {
      await Promise.all([alice.close(), mallory.close()]);
    }
  });
});
