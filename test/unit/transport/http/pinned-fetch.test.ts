import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPinnedFetch } from '../../../../src/transport/http/pinned-fetch.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server that closes idle connections after `keepAliveMs` and counts the connections it gets. */
async function serve(keepAliveMs: number): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  server = createServer((request, response) => {
    setTimeout(() => response.end('ok'), request.url === '/slow' ? 1_500 : 0);
  });
  server.keepAliveTimeout = keepAliveMs;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, connections: () => connections };
}

const loopback = async () => [{ address: '127.0.0.1', family: 4 }];

describe('createPinnedFetch keep-alive', () => {
  it('drops an idle socket before the server announces it will, instead of racing its close', async () => {
    // The server says `Keep-Alive: timeout=3` and closes at 3 s: a request 2.5 s after the first
    // must not go out on the socket the server is about to close.
    const { url, connections } = await serve(3_000);
    const pinned = createPinnedFetch(loopback);
    try {
      const first = await pinned.fetch(`${url}/`);
      expect(first.headers.get('keep-alive')).toBe('timeout=3');
      await first.text();
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(await (await pinned.fetch(`${url}/`)).text()).toBe('ok');
      expect(connections()).toBe(2);
    } finally {
      pinned.close();
    }
  }, 10_000);

  it('reuses a socket within the server’s keep-alive, and lets a slow response finish', async () => {
    const { url, connections } = await serve(3_000);
    const pinned = createPinnedFetch(loopback);
    try {
      await (await pinned.fetch(`${url}/`)).text();
      expect(await (await pinned.fetch(`${url}/slow`)).text()).toBe('ok');
      expect(connections()).toBe(1);
    } finally {
      pinned.close();
    }
  }, 10_000);
});
