// The floor: a minimal MCP server over stdio in plain newline-delimited
// JSON-RPC, with no SDK. Tools: `echo` and `large` (a text result of N bytes).
import { createInterface } from 'node:readline';

const tools = [
  {
    name: 'echo',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  },
  {
    name: 'large',
    inputSchema: { type: 'object', properties: { bytes: { type: 'integer' } }, required: ['bytes'] },
  },
];

function reply(id, result) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
}

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  switch (message.method) {
    case 'initialize':
      return reply(message.id, {
        protocolVersion: message.params?.protocolVersion ?? '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'raw-bench-server', version: '1.0.0' },
      });
    case 'tools/list':
      return reply(message.id, { tools });
    case 'ping':
      return reply(message.id, {});
    case 'tools/call': {
      const args = message.params.arguments ?? {};
      const text = message.params.name === 'large' ? 'x'.repeat(args.bytes) : String(args.message);
      return reply(message.id, { content: [{ type: 'text', text }] });
    }
    default:
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } })}\n`,
      );
  }
});
lines.on('close', () => process.exit(0));
