import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { coalescingWriter } from '../../../src/transport/stdio/coalescing-writer.js';
import {
  SERVING_MAX_LINE_BYTES,
  ServingStdioTransport,
} from '../../../src/transport/stdio/serving-transport.js';

function open() {
  const input = new PassThrough();
  const written: string[] = [];
  let room = true;
  const output = new Writable({
    highWaterMark: 8,
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString('utf8'));
      if (room) done();
      else setImmediate(done);
    },
  });
  const transport = new ServingStdioTransport(input, output);
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let closed = 0;
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e);
  transport.onclose = () => {
    closed += 1;
  };
  return {
    input,
    output,
    transport,
    messages,
    errors,
    written,
    closed: () => closed,
    fill: () => {
      room = false;
    },
  };
}

const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } };

describe('ServingStdioTransport', () => {
  it('hands over each line as a message, across chunks and with CRLF', async () => {
    const t = open();
    await t.transport.start();
    const line = JSON.stringify(request);
    t.input.write(line.slice(0, 10));
    t.input.write(`${line.slice(10)}\r\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.messages).toEqual([request, { jsonrpc: '2.0', method: 'notifications/initialized' }]);
    expect(t.errors).toEqual([]);
  });

  it('skips a line that is not JSON, and reports one that is JSON but not JSON-RPC', async () => {
    const t = open();
    await t.transport.start();
    t.input.write(`not json\n\n{"hello":1}\n${JSON.stringify(request)}\n`);
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.messages).toEqual([request]);
    expect(t.errors.map((e) => e.message)).toEqual([expect.stringMatching(/not a JSON-RPC 2\.0 message/)]);
  });

  it('writes each message as one line, and waits for a drain past the high-water mark', async () => {
    const t = open();
    await t.transport.start();
    await t.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(t.written).toEqual(['{"jsonrpc":"2.0","id":1,"result":{}}\n']);
    t.fill();
    let settled = false;
    const pending = t.transport.send({ jsonrpc: '2.0', id: 2, result: { long: 'x'.repeat(64) } }).then(() => {
      settled = true;
    });
    expect(settled).toBe(false);
    await pending;
    expect(t.written).toHaveLength(2);
  });

  it('makes every message written behind a full output share one wait for the drain', async () => {
    const t = open();
    await t.transport.start();
    t.fill();
    const pending = Array.from({ length: 500 }, (_, i) =>
      t.transport.send({ jsonrpc: '2.0', id: i, result: { long: 'x'.repeat(64) } }),
    );
    // Two of the transport's own (one drain, one error), whatever the number of messages.
    expect(t.output.listenerCount('drain')).toBe(1);
    expect(t.output.listenerCount('error')).toBe(2);
    await Promise.all(pending);
    expect(t.written.join('').split('\n')).toHaveLength(501);
    expect(t.output.listenerCount('drain')).toBe(0);
    expect(t.output.listenerCount('error')).toBe(1);
    // The next message behind a full output waits for the next drain.
    await t.transport.send({ jsonrpc: '2.0', id: 'next', result: { long: 'x'.repeat(64) } });
    expect(t.written.at(-1)).toContain('"next"');
  });

  it("behind the gateway's coalescing writer and a full pipe, a thousand replies warn about nothing", async () => {
    // The pipe (as stdout): full until the test lets it drain.
    const pipe = new Writable({
      highWaterMark: 64,
      write(_chunk, _encoding, done) {
        setTimeout(done, 5);
      },
    });
    const output = coalescingWriter(pipe);
    const t = new ServingStdioTransport(new PassThrough(), output);
    await t.start();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const sent = Array.from({ length: 1000 }, (_, i) => t.send({ jsonrpc: '2.0', id: i, result: {} }));
      expect(output.listenerCount('drain')).toBeLessThanOrEqual(1);
      await Promise.all(sent);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('fails every message waiting for a drain when the output fails', async () => {
    const t = open();
    await t.transport.start();
    t.fill();
    const pending = [1, 2, 3].map((id) =>
      t.transport.send({ jsonrpc: '2.0', id, result: { long: 'x'.repeat(64) } }),
    );
    t.output.destroy(new Error('EPIPE'));
    for (const send of pending) await expect(send).rejects.toThrow('EPIPE');
  });

  it('closes once when its input ends, and refuses to send after', async () => {
    const t = open();
    await t.transport.start();
    t.input.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.closed()).toBe(1);
    await t.transport.close();
    expect(t.closed()).toBe(1);
    await expect(t.transport.send({ jsonrpc: '2.0', id: 3, result: {} })).rejects.toThrow(/closed/);
  });

  it('reports a message past the size cap and closes', async () => {
    const t = open();
    await t.transport.start();
    t.input.write(Buffer.alloc(SERVING_MAX_LINE_BYTES + 2, 0x61));
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.errors.map((e) => e.message)).toEqual([expect.stringMatching(/exceeded the maximum size/)]);
    expect(t.closed()).toBe(1);
  });
});
