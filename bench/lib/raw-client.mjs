// The floor on the client side: spawn a server and speak newline-delimited
// JSON-RPC to it directly, matching responses by id.
import { spawn } from 'node:child_process';

export const CLIENT_INFO = { name: 'raw-bench-client', version: '1.0.0' };

/** Spawn `command args` and return a minimal JSON-RPC peer over its stdio. */
export function rawConnect(command, args, env) {
  // In its own session, as mcpx starts servers: on Linux with autogroup scheduling a new session
  // gets its own CPU share, which on a loaded machine made mcpx's servers boot faster than the
  // floor's (10 parallel handshakes: ~1.5 s here vs ~0.6 s detached).
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'], env, detached: true });
  const pending = new Map();
  let nextId = 1;
  // Chunks of the line being received; only new bytes are scanned for '\n'.
  let parts = [];
  const onLine = (line) => {
    if (!line.trim()) return;
    const message = JSON.parse(line);
    const waiter = message.id !== undefined ? pending.get(message.id) : undefined;
    if (waiter) {
      pending.delete(message.id);
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result);
    }
  };
  child.stdout.on('data', (chunk) => {
    let start = 0;
    let newline = chunk.indexOf(10);
    while (newline !== -1) {
      parts.push(chunk.subarray(start, newline));
      onLine(Buffer.concat(parts).toString('utf8'));
      parts = [];
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
  });
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const notify = (method, params) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  return {
    request,
    async initialize() {
      const result = await request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: CLIENT_INFO,
      });
      notify('notifications/initialized', {});
      return result;
    },
    close() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
        setTimeout(() => child.kill('SIGKILL'), 2000).unref();
      });
    },
  };
}
