import {
  Client,
  InMemoryTransport,
  type JSONRPCMessage,
  type StandardSchemaV1,
} from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SdkClient } from '../../../src/client/sdk-client.js';

/** A server speaking raw JSON-RPC: `tools/call` answers with the result its tool name picks. */
const RESULTS: Record<string, unknown> = {
  good: { content: [{ type: 'text', text: 'hi' }] },
  // `content` must be an array: the era's result schema refuses this one.
  bad: { content: 'not a list' },
};

async function connect(make: () => Client): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.onmessage = (message: JSONRPCMessage) => {
    if (!('id' in message) || !('method' in message)) return;
    const reply = (result: unknown) =>
      void serverSide.send({ jsonrpc: '2.0', id: message.id, result } as never);
    if (message.method === 'initialize')
      reply({
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'scripted', version: '1.0.0' },
      });
    else if (message.method === 'tools/call')
      reply(RESULTS[(message.params as { name: string }).name] ?? RESULTS.good);
    else if (message.method === 'tools/list') reply({ tools: [] });
  };
  await serverSide.start();
  const client = make();
  await client.connect(clientSide);
  return client;
}

const options = { versionNegotiation: { mode: 'legacy' as const } };
const info = { name: 'test', version: '1.0.0' };

afterEach(() => {
  vi.restoreAllMocks();
});

describe('SdkClient', () => {
  it('returns what the SDK Client returns for a valid result', async () => {
    const plain = await connect(() => new Client(info, options));
    const ours = await connect(() => new SdkClient(info, options));
    const args = { name: 'good', arguments: {} };
    expect(await ours.callTool(args)).toEqual(await plain.callTool(args));
    await Promise.all([plain.close(), ours.close()]);
  });

  it('refuses an invalid result with the SDK Client’s own error', async () => {
    const plain = await connect(() => new Client(info, options));
    const ours = await connect(() => new SdkClient(info, options));
    const args = { name: 'bad', arguments: {} };
    const expected = await plain.callTool(args).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(expected?.message).toMatch(/Invalid result for tools\/call/);
    await expect(ours.callTool(args)).rejects.toThrow(expected?.message as string);
    await Promise.all([plain.close(), ours.close()]);
  });

  it('hands the SDK one result validator per method instead of letting it probe per request', async () => {
    const ours = await connect(() => new SdkClient(info, options));
    const spy = vi.spyOn(Client.prototype, 'request');
    await ours.callTool({ name: 'good', arguments: {} });
    await ours.callTool({ name: 'good', arguments: {} });
    const schemas = spy.mock.calls.map((call) => call[1] as StandardSchemaV1);
    expect(schemas).toHaveLength(2);
    expect(schemas[0]?.['~standard'].vendor).toBe('mcp-wire-codec');
    expect(schemas[1]).toBe(schemas[0]);
    // Methods outside the per-call set keep the SDK's own path (no schema passed).
    await ours.listTools();
    const listCall = spy.mock.calls.at(-1);
    expect(listCall?.[0]).toMatchObject({ method: 'tools/list' });
    expect((listCall?.[1] as object | undefined)?.['~standard' as never]).toBeUndefined();
    await ours.close();
  });
});
