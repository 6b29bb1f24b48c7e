// The four ways of talking to one stdio server that the per-call and
// large-result benchmarks compare: the raw floor, the SDK Client used
// directly, mcpx's connection layer, and mcpx's agent-tool path.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { connectServer } from '../../dist/client/server-connection.js';
import { createServerTransport } from '../../dist/client/transport-factory.js';
import { SERVER_DEFAULTS } from '../../dist/config/entry/server-defaults.js';
import { ServerRegistry } from '../../dist/registry/index.js';
import { createAgentTools } from '../../dist/tools/agent-tools.js';
import { rawConnect } from './raw-client.mjs';

export const VARIANTS = ['raw', 'sdk', 'mcpx', 'mcpx-agent'];

function serverConfig(command, args) {
  return {
    name: 'bench',
    transport: 'stdio',
    ...SERVER_DEFAULTS,
    command,
    args,
    protocol: 'legacy',
    origin: { layer: 'explicit' },
    fingerprint: 'bench',
  };
}

/**
 * Connect with `variant`; returns `call(name, args) → text` and `close()`.
 * Every variant speaks the 2025 handshake so all do the same protocol work.
 */
export async function connectVariant(variant, command, args) {
  switch (variant) {
    case 'raw': {
      const peer = rawConnect(command, args, { PATH: process.env.PATH });
      await peer.initialize();
      return {
        call: async (name, a) => (await peer.request('tools/call', { name, arguments: a })).content[0].text,
        close: () => peer.close(),
      };
    }
    case 'sdk': {
      const client = new Client({ name: 'bench', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
      return {
        call: async (name, a) => (await client.callTool({ name, arguments: a })).content[0].text,
        close: () => client.close(),
      };
    }
    case 'mcpx': {
      const server = serverConfig(command, args);
      const connection = await connectServer(server, {
        createTransport: () => createServerTransport(server, { hostEnv: process.env }),
      });
      return {
        call: async (name, a) => (await connection.callTool(name, a)).content[0].text,
        close: () => connection.close(),
      };
    }
    case 'mcpx-agent': {
      // The agent-tool path: name lookup, argument validation, the permission
      // guard (an allow-all one here) and result conversion, over the registry.
      const server = serverConfig(command, args);
      const registry = new ServerRegistry([server], {
        connector: (s, hooks) =>
          connectServer(s, {
            createTransport: () => createServerTransport(s, { hostEnv: process.env }),
            onListChanged: hooks.onListChanged,
          }),
      });
      await registry.connect('bench');
      const tools = await createAgentTools(registry, { guard: { check: async () => {} } });
      return {
        call: async (name, a) => (await tools.call(`mcp_bench_${name}`, a)).text,
        close: () => registry.close(),
      };
    }
    default:
      throw new Error(`unknown variant ${variant}`);
  }
}
