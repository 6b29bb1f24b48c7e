/**
 * Where `mcpx exec` puts the flags that name its hand-over file in an agent
 * CLI's command line. An agent with subcommands takes them only where its
 * grammar accepts them: Claude Code reads `--mcp-config` on the session it
 * starts (`claude`, `claude -p …`) and on `claude agents`, and refuses it
 * after `claude mcp list` ("unknown option"), whose subcommands read Claude
 * Code's own files (`~/.claude.json`, `.mcp.json`) and nothing else.
 */
import { basename } from 'node:path';

export interface HandOverOptions {
  /** The flag that names the file (`--mcp-config` unless the agent spells it otherwise). */
  readonly flag: string;
  readonly file: string;
  /** Add `--strict-mcp-config` (the agent keeps none of its own servers). */
  readonly strict: boolean;
}

/** The command line with the hand-over in place, or why this command takes none. */
export type HandOverPlan =
  | { readonly handsOver: true; readonly args: readonly string[] }
  | { readonly handsOver: false; readonly args: readonly string[]; readonly subcommand: string };

const CLAUDE_CONFIG_FLAG = '--mcp-config';

// Claude Code 2.1's subcommands (`claude --help`); only `agents` takes --mcp-config, for the
// sessions it dispatches. A subcommand added later is taken for a prompt, as Claude Code would
// do on an older version.
const CLAUDE_SUBCOMMANDS = new Set([
  'agents',
  'attach',
  'auth',
  'auto-mode',
  'doctor',
  'gateway',
  'help',
  'import',
  'install',
  'kill',
  'logs',
  'mcp',
  'plugin',
  'plugins',
  'purge',
  'respawn',
  'rm',
  'setup-token',
  'stop',
  'ultrareview',
  'update',
  'upgrade',
]);
const CLAUDE_SUBCOMMANDS_WITH_MCP_CONFIG = new Set(['agents']);

/** Whether `executable` runs Claude Code (`claude`, a path to it, `claude.exe` on Windows). */
export function isClaudeCode(executable: string): boolean {
  return /^claude(\.exe|\.cmd)?$/i.test(basename(executable));
}

/**
 * Places `<flag> <file> [--strict-mcp-config]` in `args` (the agent's own
 * arguments, after its executable).
 *
 * Claude Code (`claude`, with its own flag): before the prompt, spelt
 * `--mcp-config=<file>` (the flag takes several files, so a prompt after
 * `--mcp-config <file>` would be read as one more); after `agents`; and not
 * at all for the other subcommands. Any other agent: after its arguments,
 * but before a `--` of its own, past which nothing is read as a flag.
 *
 * @example
 * planHandOver('claude', ['-p', 'hi'], { flag: '--mcp-config', file: 'f.json', strict: true }).args
 * // ['--mcp-config=f.json', '--strict-mcp-config', '-p', 'hi']
 */
export function planHandOver(
  executable: string,
  args: readonly string[],
  options: HandOverOptions,
): HandOverPlan {
  const strict = options.strict ? ['--strict-mcp-config'] : [];
  if (isClaudeCode(executable) && options.flag === CLAUDE_CONFIG_FLAG) {
    const flags = [`${CLAUDE_CONFIG_FLAG}=${options.file}`, ...strict];
    const at = firstOperand(args);
    const word = at === undefined ? undefined : args[at];
    if (at === undefined || word === undefined || !CLAUDE_SUBCOMMANDS.has(word))
      return { handsOver: true, args: [...flags, ...args] };
    if (!CLAUDE_SUBCOMMANDS_WITH_MCP_CONFIG.has(word)) return { handsOver: false, args, subcommand: word };
    return { handsOver: true, args: [...args.slice(0, at + 1), ...flags, ...args.slice(at + 1)] };
  }
  const flags = [options.flag, options.file, ...strict];
  const end = args.indexOf('--');
  if (end === -1) return { handsOver: true, args: [...args, ...flags] };
  return { handsOver: true, args: [...args.slice(0, end), ...flags, ...args.slice(end)] };
}

/**
 * The index of the first argument that is not an option, before any `--`: where a CLI built
 * on commander (as Claude Code is) looks for its subcommand. An option's value spelt apart
 * (`--model opus`) is taken for it: `opus` names no subcommand, so the flags go first, which
 * is where the session it starts reads them.
 */
function firstOperand(args: readonly string[]): number | undefined {
  for (const [index, arg] of args.entries()) {
    if (arg === '--') return undefined;
    if (!arg.startsWith('-')) return index;
  }
  return undefined;
}
