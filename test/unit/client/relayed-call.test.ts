import { type JSONRPCMessage, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { CallCancel } from '../../../src/client/call-cancel.js';
import { isPlainToolResult, RelayedCalls } from '../../../src/client/relayed-call.js';
import type { StdioTransport } from '../../../src/transport/index.js';

/** A pipe that records what is sent and lets the test answer. */
function pipe() {
  const sent: Record<string, unknown>[] = [];
  const transport = {
    onrelayreply: undefined as ((reply: JSONRPCMessage) => void) | undefined,
    send: async (message: Record<string, unknown>) => {
      sent.push(message);
    },
  };
  const relay = new RelayedCalls(transport as unknown as StdioTransport);
  const replyTo = (id: unknown, message: Record<string, unknown>) =>
    transport.onrelayreply?.({ jsonrpc: '2.0', id, ...message } as JSONRPCMessage);
  const reply = (message: Record<string, unknown>) => replyTo(sent[0]?.id, message);
  return { sent, relay, reply, replyTo };
}

const call = { name: 'echo', arguments: { message: 'hi' } };

describe('RelayedCalls', () => {
  it('sends tools/call under an id of its own and resolves with the result', async () => {
    const { sent, relay, reply } = pipe();
    const pending = relay.callTool(call, { timeout: 1000 });
    await Promise.resolve();
    expect(sent[0]).toMatchObject({ method: 'tools/call', params: call });
    expect(String(sent[0]?.id)).toMatch(/^mcpx-relay:/);
    reply({ result: { content: [{ type: 'text', text: 'hi' }] } });
    await expect(pending).resolves.toEqual({ content: [{ type: 'text', text: 'hi' }] });
  });

  it('an error answer rejects as the SDK client rejects it (ProtocolError with code and data)', async () => {
    const { relay, reply } = pipe();
    const pending = relay.callTool(call, { timeout: 1000 });
    await Promise.resolve();
    reply({ error: { code: -32602, message: 'bad', data: { why: 1 } } });
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: -32602, data: { why: 1 } });
  });

  it('a timeout cancels upstream and rejects with the SDK timeout error; a late answer is dropped', async () => {
    const { sent, relay, reply } = pipe();
    const error = await relay.callTool(call, { timeout: 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(SdkErrorCode.RequestTimeout);
    expect(sent[1]).toMatchObject({ method: 'notifications/cancelled', params: { requestId: sent[0]?.id } });
    reply({ result: { content: [] } }); // nothing left to settle: no throw
  });

  it('an abort cancels upstream with its reason; closing fails what is still waiting', async () => {
    const { sent, relay } = pipe();
    const abort = new AbortController();
    const aborted = relay.callTool(call, { timeout: 1000, signal: abort.signal });
    const waiting = relay.callTool(call, { timeout: 1000 });
    abort.abort('enough');
    await expect(aborted).rejects.toMatchObject({ code: SdkErrorCode.RequestTimeout, message: 'enough' });
    expect(sent.at(-1)).toMatchObject({ method: 'notifications/cancelled', params: { reason: 'enough' } });
    relay.close();
    await expect(waiting).rejects.toMatchObject({ code: SdkErrorCode.ConnectionClosed });
  });

  it('a CallCancel cancels upstream as an abort does; a call that ended stops watching it', async () => {
    const { sent, relay, replyTo } = pipe();
    const cancel = new CallCancel();
    const cancelled = relay.callTool(call, { timeout: 1000, cancel });
    cancel.abort('enough');
    await expect(cancelled).rejects.toMatchObject({ code: SdkErrorCode.RequestTimeout, message: 'enough' });
    expect(sent.at(-1)).toMatchObject({
      method: 'notifications/cancelled',
      params: { requestId: sent[0]?.id, reason: 'enough' },
    });
    // Already cancelled: refused before anything is sent.
    const count = sent.length;
    await expect(relay.callTool(call, { timeout: 1000, cancel })).rejects.toMatchObject({
      message: 'enough',
    });
    expect(sent).toHaveLength(count);
    // A call that ended stops watching: a later abort of its CallCancel sends nothing.
    const done = new CallCancel();
    const answered = relay.callTool(call, { timeout: 1000, cancel: done });
    await Promise.resolve();
    const before = sent.length;
    replyTo(sent.at(-1)?.id, { result: { content: [] } });
    await expect(answered).resolves.toEqual({ content: [] });
    done.abort('too late');
    expect(sent).toHaveLength(before);
  });

  it("a result richer than plain text gets the SDK's own schema check", async () => {
    const { relay, reply } = pipe();
    const image = { content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }] };
    const good = relay.callTool(call, { timeout: 1000 });
    await Promise.resolve();
    reply({ result: image });
    await expect(good).resolves.toMatchObject(image);

    const second = pipe();
    const bad = second.relay.callTool(call, { timeout: 1000 });
    await Promise.resolve();
    second.reply({ result: { content: [{ type: 'text' }] } });
    await expect(bad).rejects.toMatchObject({ code: SdkErrorCode.InvalidResult });
  });

  it('isPlainToolResult takes text blocks only', () => {
    expect(isPlainToolResult({ content: [{ type: 'text', text: 'a' }], isError: true })).toBe(true);
    expect(isPlainToolResult({ content: [{ type: 'text', text: 1 }] })).toBe(false);
    expect(isPlainToolResult({ content: [], structuredContent: {} })).toBe(false);
    expect(isPlainToolResult({})).toBe(false);
  });
});
