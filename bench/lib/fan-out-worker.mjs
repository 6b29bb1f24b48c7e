// Connect N test servers and list their tools: mcpx's registry, or raw
// parallel handshakes. Prints one JSON line with the wall time.
import { connectServer } from '../../dist/client/server-connection.js';
import { createServerTransport } from '../../dist/client/transport-factory.js';
import { SERVER_DEFAULTS } from '../../dist/config/entry/server-defaults.js';
import { ServerRegistry } from '../../dist/registry/index.js';
import { rawConnect } from './raw-client.mjs';

const [variant, count, server] = [process.argv[2], Number(process.argv[3]), process.argv[4]];
const started = process.hrtime.bigint();
let tools = 0;
if (variant === 'raw') {
  const peers = await Promise.all(
    Array.from({ length: count }, async () => {
      const peer = rawConnect(process.execPath, [server], { PATH: process.env.PATH });
      await peer.initialize();
      const listed = (await peer.request('tools/list', {})).tools.length;
      tools += listed; // not `tools += await …`, which adds to the count read before the wait
      return peer;
    }),
  );
  await Promise.all(peers.map((p) => p.close()));
} else {
  const servers = Array.from({ length: count }, (_, i) => ({
    name: `s${i}`,
    transport: 'stdio',
    ...SERVER_DEFAULTS,
    command: process.execPath,
    args: [server],
    protocol: 'legacy',
    origin: { layer: 'explicit' },
    fingerprint: `s${i}`,
  }));
  const registry = new ServerRegistry(servers, {
    concurrency: count,
    connector: (s, hooks) =>
      connectServer(s, {
        createTransport: () => createServerTransport(s, { hostEnv: process.env }),
        onListChanged: hooks.onListChanged,
      }),
  });
  const statuses = await registry.connectAll();
  tools = statuses.reduce((sum, s) => sum + s.tools.length, 0);
  await registry.close();
}
const ms = Number(process.hrtime.bigint() - started) / 1e6;
process.stdout.write(`${JSON.stringify({ variant, count, ms, tools })}\n`);
