// The SDK's own server hop, for splitting the gateway's cost: the minimal server's `echo` as a
// low-level SDK `Server` over the SDK's stdio transport (what `mcpx serve` runs downstream),
// with no upstream behind it. Its CPU per call is what one SDK server hop costs.
import { Server } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

const server = new Server({ name: 'sdk-bench-server', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler('tools/list', () => ({
  tools: [
    {
      name: 'echo',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    },
  ],
}));
server.setRequestHandler('tools/call', (request) => ({
  content: [{ type: 'text', text: String(request.params.arguments?.message) }],
}));
await server.connect(new StdioServerTransport());
process.stdin.on('end', () => process.exit(0));
