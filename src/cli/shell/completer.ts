import type { Tool } from '@modelcontextprotocol/client';
import { forTerminal, type SafeText } from '../../text/index.js';

/** What completion needs to know; tool lists may connect the server (first use). */
export interface CompletionSource {
  /** The `/` commands; {@link COMMANDS} when not given. */
  commands?(): readonly string[];
  servers(): readonly string[];
  tools(server: string): Promise<readonly Tool[]>;
  /** Candidates after a front end's own `/command` and the operands typed so far. */
  commandArguments?(command: string, words: readonly string[]): Promise<readonly string[]>;
}

/** The console's `/` commands. */
export const COMMANDS = ['/mcp', '/help', '/exit'] as const;

/** `/mcp`'s subcommands, and which of them take a server name next. */
export const MCP_SUBCOMMANDS = [
  'connect',
  'disconnect',
  'tools',
  'resources',
  'prompts',
  'prompt',
  'read',
  'retry',
] as const;

/**
 * Tab completion for the console: `/` commands, `/mcp` subcommands, server
 * names after them and after `@`, tool names after `@server`, a tool's
 * argument keys (`key=`) after `@server tool`, leaving out keys already given,
 * and what a front end's own commands offer (`commandArguments`).
 * Returns readline's `[candidates, the word they replace]`.
 */
export async function complete(line: string, source: CompletionSource): Promise<[SafeText[], string]> {
  const words = line.split(/\s+/);
  const word = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  // readline prints candidates as they are: a name a server made with escape sequences or
  // hidden characters is not offered (forTerminal would change it, so it is not safe to show).
  const pick = (candidates: readonly string[]): [SafeText[], string] => [
    candidates.flatMap((c) => {
      const shown = forTerminal(c);
      return c.startsWith(word) && shown === c ? [shown] : [];
    }),
    word,
  ];
  if (line.startsWith('/')) {
    if (before.length === 0) return pick(source.commands?.() ?? COMMANDS);
    if (before[0] !== '/mcp') {
      const candidates = await source.commandArguments?.(before[0] ?? '', before.slice(1)).catch(() => []);
      return pick(candidates ?? []);
    }
    if (before.length === 1) return pick(MCP_SUBCOMMANDS);
    if (before.length === 2) return pick(source.servers());
    return [[], word];
  }
  if (!line.startsWith('@')) return [[], word];
  if (before.length === 0) return pick(source.servers().map((s) => `@${s}`));
  const server = (before[0] ?? '').slice(1);
  if (!source.servers().includes(server)) return [[], word];
  const tools = await source.tools(server).catch(() => [] as readonly Tool[]);
  if (before.length === 1) return pick(tools.map((t) => t.name));
  const tool = tools.find((t) => t.name === before[1]);
  if (!tool || word.includes('=') || word.startsWith('{')) return [[], word];
  const given = new Set(before.slice(2).map((w) => w.split('=')[0]));
  const keys = Object.keys(tool.inputSchema.properties ?? {}).filter((k) => !given.has(k));
  return pick(keys.map((k) => `${k}=`));
}
