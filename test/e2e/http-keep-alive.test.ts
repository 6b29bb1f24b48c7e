/**
 * A client whose event loop was busy for longer than Node's default keep-alive (5 s) writes its next
 * request onto the socket it kept; the HTTP front (and mcpx's own HTTP test server) must still be
 * holding that socket open, not have closed it under the client ("socket hang up" / "other side closed").
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, testServerPath } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

const BLOCK_MS = 7_000;

/** Hold this thread (timers, sockets and all) as a busy client would. */
function blockEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** POST one JSON-RPC message over `agent` (kept-alive sockets); resolves with status and body. */
function post(agent: Agent, url: string, message: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'server/discover',
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(message));
  });
}

const discover = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'server/discover',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'keep-alive-test', version: '1' },
    },
  },
});

/** Two calls on one kept-alive socket with the client blocked between them. */
async function twoCallsAcrossABlock(url: string): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const sockets = new Set<unknown>();
    agent.on('free', (socket) => sockets.add(socket));
    const first = await post(agent, url, discover(1));
    expect(first.status).toBe(200);
    blockEventLoop(BLOCK_MS);
    const second = await post(agent, url, discover(2));
    expect(second.status).toBe(200);
    expect(second.body).toContain('supportedVersions');
    expect(sockets.size).toBe(1);
  } finally {
    agent.destroy();
  }
}

describe('HTTP keep-alive outlives a busy client', () => {
  let world: GatewayWorld | undefined;
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null && child.signalCode === null) {
        child.kill();
        await exited;
      }
    }
    await world?.close();
    world = undefined;
  });

  it('mcpx serve --http answers the second call after the client was blocked 7 s', async () => {
    world = await gatewayWorld({
      permission: 'yolo',
      mcpServers: { local: { command: process.execPath, args: [testServerPath] } },
    });
    const gateway = await world.serve();
    await twoCallsAcrossABlock(gateway.url);
  }, 30_000);

  it("mcpx's own HTTP test server does too", async () => {
    const script = join(repoRoot, 'dist/testing/http-test-server.js');
    const child = spawn(process.execPath, [script, '--port', '0', '--era', 'modern'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.once('exit', () => reject(new Error(`test server exited:\n${out}`)));
      child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1] as string);
      });
    });
    await twoCallsAcrossABlock(url);
  }, 30_000);
});
