import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { type CompletionSource, complete } from '../../../../src/cli/shell/completer.js';

const echo: Tool = {
  name: 'echo',
  inputSchema: { type: 'object', properties: { message: { type: 'string' }, mode: { type: 'string' } } },
};
const source: CompletionSource = {
  servers: () => ['demo', 'docs'],
  tools: async (server) =>
    server === 'demo' ? [echo, { name: 'add', inputSchema: { type: 'object' } }] : [],
};

describe('complete', () => {
  it('completes commands, /mcp subcommands and server names after them', async () => {
    expect(await complete('/m', source)).toEqual([['/mcp'], '/m']);
    expect(await complete('/mcp dis', source)).toEqual([['disconnect'], 'dis']);
    expect(await complete('/mcp connect d', source)).toEqual([['demo', 'docs'], 'd']);
    expect(await complete('/mcp connect demo --', source)).toEqual([[], '--']);
  });

  it('completes @server, its tool names, and argument keys not given yet', async () => {
    expect(await complete('@de', source)).toEqual([['@demo'], '@de']);
    expect(await complete('@demo e', source)).toEqual([['echo'], 'e']);
    expect(await complete('@demo echo ', source)).toEqual([['message=', 'mode='], '']);
    expect(await complete('@demo echo message=hi m', source)).toEqual([['mode='], 'm']);
    expect(await complete('@nobody e', source)).toEqual([[], 'e']);
    expect(await complete('plain words', source)).toEqual([[], 'words']);
  });

  it('never offers a server-made name that carries escape sequences or hidden characters', async () => {
    const hostile: CompletionSource = {
      servers: () => ['h'],
      tools: async () => [
        { name: 'ok', inputSchema: { type: 'object', properties: { 'k\u001b[2J': {}, key: {} } } },
        { name: 'o\u202ek', inputSchema: { type: 'object' } },
      ],
    };
    expect(await complete('@h o', hostile)).toEqual([['ok'], 'o']);
    expect(await complete('@h ok k', hostile)).toEqual([['key='], 'k']);
  });
});
