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

  it("completes a front end's own commands by what they offer, never a hostile candidate", async () => {
    const asked: [string, readonly string[]][] = [];
    const chat: CompletionSource = {
      ...source,
      commands: () => ['/mcp', '/attach'],
      commandArguments: async (command, words) => {
        asked.push([command, words]);
        return words.length === 0 ? ['demo', 'docs'] : ['test://readme.txt', 'test://r\u001b]0;x\u0007'];
      },
    };
    expect(await complete('/attach d', chat)).toEqual([['demo', 'docs'], 'd']);
    expect(await complete('/attach demo test://r', chat)).toEqual([['test://readme.txt'], 'test://r']);
    expect(asked).toEqual([
      ['/attach', []],
      ['/attach', ['demo']],
    ]);
    const failing: CompletionSource = {
      ...source,
      commandArguments: () => Promise.reject(new Error('down')),
    };
    expect(await complete('/attach d', failing)).toEqual([[], 'd']);
  });
});
