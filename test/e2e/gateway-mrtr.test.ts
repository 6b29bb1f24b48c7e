/**
 * An upstream's questions during a call (elicitation, sampling) reach the
 * client that made the call through `mcpx serve`, in every pairing of eras:
 * a 2025-11-25 upstream asks with server→client requests, a 2026-07-28 one
 * with `input_required` results; a 2025 client is asked on its session, a
 * 2026-07-28 client in `input_required` rounds. The upstream is the
 * conformance backend pinned to one era per configured server.
 */
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
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
    capabilities: { sampling: {}, elicitation: { form: {} } },
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
    expect(asked).toEqual(['elicitation', 'sampling']);
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

  it('cannot be used by another client, and is refused once used', async () => {
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
      // Single use: the same state again is refused with an error that says why.
      await expect(call(alice, tool, { state, key: key as string, answer: 'Alice' })).rejects.toThrow(
        /requestState.*(used|expired)/,
      );
    } finally {
      await Promise.all([alice.close(), mallory.close()]);
    }
  });
});
