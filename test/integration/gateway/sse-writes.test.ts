/**
 * An SSE answer (a 2025-11-25 call's stream, a 2026-07-28 call that logs) is written as it
 * comes, but what one turn of the event loop produces leaves the socket in one system call:
 * each write to a loopback socket costs the gateway a syscall and wakes its client.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { writeWebResponse } from '../../../src/gateway/server-kit.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Serve `respond()` once; resolve with the body the client read and the socket writes it took. */
async function serveOnce(respond: () => Response): Promise<{ body: string; writes: number }> {
  let writes = 0;
  server = createServer((_req, res) => {
    // Each call into the socket's _write/_writev is one write system call on a loopback socket.
    type Write = (...args: unknown[]) => void;
    const socket = res.socket as Socket & { _write: Write; _writev?: Write };
    const write = socket._write.bind(socket);
    const writev = socket._writev?.bind(socket);
    socket._write = (...args: unknown[]) => {
      writes++;
      return write(...args);
    };
    if (writev)
      socket._writev = (...args: unknown[]) => {
        writes++;
        return writev(...args);
      };
    void writeWebResponse(res, respond());
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
  return { body, writes };
}

const event = (n: number) => new TextEncoder().encode(`event: message\ndata: {"n":${n}}\n\n`);
const sse = (stream: ReadableStream<Uint8Array>) =>
  new Response(stream, { headers: { 'content-type': 'text/event-stream' } });

it('headers, the events ready together and the end leave in one write', async () => {
  const { body, writes } = await serveOnce(() =>
    sse(
      new ReadableStream({
        start(controller) {
          for (const n of [1, 2, 3]) controller.enqueue(event(n));
          controller.close();
        },
      }),
    ),
  );
  expect(body).toBe(
    'event: message\ndata: {"n":1}\n\nevent: message\ndata: {"n":2}\n\nevent: message\ndata: {"n":3}\n\n',
  );
  expect(writes).toBe(1);
});

it('an event that comes later is written when it comes, not held back', async () => {
  const { body, writes } = await serveOnce(() =>
    sse(
      new ReadableStream({
        start(controller) {
          controller.enqueue(event(1));
          setTimeout(() => {
            controller.enqueue(event(2));
            controller.close();
          }, 50);
        },
      }),
    ),
  );
  expect(body).toBe('event: message\ndata: {"n":1}\n\nevent: message\ndata: {"n":2}\n\n');
  // The headers with the first event, then the second with the end.
  expect(writes).toBe(2);
});
