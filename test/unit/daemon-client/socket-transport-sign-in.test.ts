import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { DaemonSocketTransport } from '../../../src/daemon-client/socket-transport.js';
import { carriedError, carryError, ErrorCode, McpxError } from '../../../src/errors/index.js';
import { tempDir } from '../../helpers/cli.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const needsSignIn = (scope: string) =>
  carryError(
    new McpxError(ErrorCode.AuthRequired, "'secure' requires authorization", {
      server: 'secure',
      signIn: { scope },
    }),
  );

/** A daemon stand-in: answers each request with `answer`, recording every line it receives. */
async function daemon(answer: (message: { id: number; method: string }, seen: number) => object) {
  const dir = await tempDir('mcpx-socket-sign-in-');
  cleanups.push(dir.remove);
  const path = join(dir.path, 'd.sock');
  const received: { id?: number; method: string; params?: { requestId?: number } }[] = [];
  const server: Server = createServer((socket: Socket) => {
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        received.push(message);
        if (message.id === undefined) continue;
        const seen = received.filter((m) => m.id === message.id).length;
        socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, ...answer(message, seen) })}\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const socket = await new Promise<Socket>((resolve) => {
    const s = connect(path, () => resolve(s));
  });
  return { socket, received };
}

async function open(socket: Socket, signIn?: (scope: string | undefined) => Promise<void>) {
  const transport = new DaemonSocketTransport(socket, 'secure', undefined, signIn);
  const messages: JSONRPCMessage[] = [];
  transport.onmessage = (message) => messages.push(message);
  await transport.start();
  cleanups.push(() => transport.close());
  return { transport, messages };
}

const request = (id: number) => ({ jsonrpc: '2.0' as const, id, method: 'tools/call', params: {} });
const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('a request the daemon refuses for want of a sign-in', () => {
  it('is held back while the person signs in once for all of them, then sent again once', async () => {
    // Refused the first time, answered the second.
    const { socket, received } = await daemon((_, seen) =>
      seen === 1
        ? { error: { code: -32603, message: 'x', data: needsSignIn('basic more') } }
        : { result: {} },
    );
    const scopes: (string | undefined)[] = [];
    const { transport, messages } = await open(socket, async (scope) => {
      scopes.push(scope);
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    await transport.send(request(1));
    await transport.send(request(2));
    await until(() => messages.length === 2);
    expect(scopes).toEqual(['basic more']);
    expect(messages).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect(received.map((m) => m.id)).toEqual([1, 2, 1, 2]);
  });

  it('is not sent again when it was cancelled while the person signed in', async () => {
    const { socket, received } = await daemon(() => ({
      error: { code: -32603, message: 'x', data: needsSignIn('s') },
    }));
    let finish: (() => void) | undefined;
    const { transport, messages } = await open(
      socket,
      () =>
        new Promise<void>((resolve) => {
          finish = resolve;
        }),
    );
    await transport.send(request(7));
    // The refusal arrived and the person is signing in.
    await until(() => finish !== undefined);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
    finish?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received.filter((m) => m.id === 7)).toHaveLength(1);
    expect(messages).toEqual([]);
  });

  it('answers with why the sign-in failed when it does (cancelled, refused)', async () => {
    const { socket } = await daemon(() => ({
      error: { code: -32603, message: 'x', data: needsSignIn('s') },
    }));
    const { transport, messages } = await open(socket, async () => {
      throw new McpxError(ErrorCode.Cancelled, "the sign-in to 'secure' was cancelled");
    });
    await transport.send(request(3));
    await until(() => messages.length === 1);
    const answer = messages[0] as { error: { message: string; data: unknown } };
    expect(answer.error.message).toBe("the sign-in to 'secure' was cancelled");
    expect(carriedError(answer.error.data)?.code).toBe(ErrorCode.Cancelled);
  });

  it('is passed on as it is where no one can sign in (no terminal): the direct path’s error', async () => {
    const { socket, received } = await daemon(() => ({
      error: { code: -32603, message: 'x', data: needsSignIn('s') },
    }));
    const { transport, messages } = await open(socket);
    await transport.send(request(4));
    await until(() => messages.length === 1);
    expect(received).toHaveLength(1);
    const error = transport.failureFor(
      new (await import('@modelcontextprotocol/client')).ProtocolError(
        -32603,
        'x',
        (messages[0] as { error: { data: unknown } }).error.data,
      ),
    );
    expect(error?.code).toBe(ErrorCode.AuthRequired);
    expect(error?.context.server).toBe('secure');
  });
});
