import type { Tool } from '@modelcontextprotocol/client';
import { suggest } from '../../config/index.js';
import { ErrorCode, McpxError, toMcpxError } from '../../errors/index.js';
import type { PermissionGuard } from '../../permissions/index.js';
import type { ServerRegistry } from '../../registry/index.js';
import { forTerminal, renderContent, renderContentBlock, type SafeText, say } from '../../text/index.js';
import { tellAppLink } from '../apps/app-link.js';
import { cliArgumentSources } from '../arguments/cli-sources.js';
import {
  argumentsError,
  parseArgumentWords,
  promptArguments,
  readArgumentSources,
  typeArguments,
} from '../arguments/type-arguments.js';
import type { CliContext } from '../context/context.js';
import { createProgressBar } from '../output/progress-bar.js';
import { writeError } from '../target/report.js';
import { COMMANDS, MCP_SUBCOMMANDS } from './completer.js';
import { parseJsonArguments, type ShellLine } from './parse-line.js';
import { renderServers, renderToolHelp, renderToolList } from './render.js';

/** What a console command works with; one per session. */
export interface ShellContext {
  readonly session: CliContext;
  readonly registry: ServerRegistry;
  /** The model's permission guard: `/mcp connect --allow-all` approves a server on it. */
  readonly guard: PermissionGuard;
  /** The console's agent id: servers it connects without --shared are its own. */
  readonly agentId: string;
  /** Results, on stdout. */
  readonly out: (text: SafeText) => void;
  /** Notices and errors, on stderr. */
  readonly err: (text: SafeText) => void;
  readonly columns: number;
  /** Progress bars and redraws only on a terminal. */
  readonly terminal: boolean;
  /** Where a progress bar draws, when it must give way to a server's questions (else `err`). */
  readonly status?: (chunk: SafeText) => void;
  /** Commands a front end adds (chat's `/tools`, `/clear`), by name without the slash. */
  readonly extra?: Readonly<Record<string, ExtraCommand>>;
}

/** A `/name` command added by a front end. */
export interface ExtraCommand {
  /** One line for /help. */
  readonly help: string;
  /** What follows the name in /help, e.g. `<server> <uri>`. */
  readonly usage?: string;
  /** `signal` is aborted by Ctrl-C while the command runs. */
  run(args: readonly string[], signal: AbortSignal): void | Promise<void>;
  /** Tab completion: candidates for the word after `words` (the operands typed so far). */
  complete?(words: readonly string[]): Promise<readonly string[]>;
}

/** Every `/` command of this console, for completion and did-you-mean. */
export function commandNames(ctx: Pick<ShellContext, 'extra'>): string[] {
  return [...COMMANDS, ...Object.keys(ctx.extra ?? {}).map((name) => `/${name}`)];
}

export const HELP = `Commands:
  /mcp                                 servers, their state, tool count and origin
  /mcp connect <server> [--allow-all] [--shared]
                                       connect now; --allow-all lets the model use all its tools
  /mcp disconnect <server>             stop it (its process tree ends)
  /mcp tools|resources|prompts [server]
  /mcp prompt <server> <name> [key=value …]
  /mcp read <server> <uri>
  /mcp retry <server>                  list its tools again
  @<server> ?                          its tools
  @<server> <tool> ?                   a tool's parameters and an example
  @<server> <tool> key=value …         call it (or one JSON object: @<server> <tool> {"key": "value"})
  /help, /exit (or Ctrl-D)             Tab completes; Ctrl-C cancels a running call
`;

/** Run one `/` command or `@` line; resolves `'exit'` for `/exit`. */
export async function runShellLine(
  ctx: ShellContext,
  parsed: Exclude<ShellLine, { kind: 'empty' | 'text' }>,
  line: string,
  signal: AbortSignal,
): Promise<'exit' | undefined> {
  if (parsed.kind === 'at') {
    await runAt(ctx, parsed, line, signal);
    return undefined;
  }
  switch (parsed.name) {
    case 'exit':
    case 'quit':
      return 'exit';
    case 'help':
      ctx.out(
        say`${HELP}${Object.entries(ctx.extra ?? {})
          .map(helpLine)
          .join('')}`,
      );
      return undefined;
    case 'mcp':
      await runMcp(ctx, parsed.args, signal);
      return undefined;
    default: {
      const extra = ctx.extra?.[parsed.name];
      if (extra && Object.hasOwn(ctx.extra ?? {}, parsed.name)) {
        await extra.run(parsed.args, signal);
        return undefined;
      }
      const guess = suggest(`/${parsed.name}`, commandNames(ctx));
      throw new McpxError(
        ErrorCode.Usage,
        `unknown command '/${parsed.name}'${guess ? ` — did you mean '${guess}'?` : ''}`,
        { fixes: ['type /help to see the commands'] },
      );
    }
  }
}

/** `  /name usage   help`, the help on a line of its own when the left side is long. */
function helpLine([name, command]: [string, ExtraCommand]): string {
  const left = `/${name}${command.usage ? ` ${command.usage}` : ''}`;
  return left.length > 36
    ? `  ${left}\n${' '.repeat(39)}${command.help}\n`
    : `  ${left.padEnd(36)} ${command.help}\n`;
}

/** Completion candidates for a front end's command, or none. */
export async function completeExtra(
  ctx: Pick<ShellContext, 'extra'>,
  command: string,
  words: readonly string[],
): Promise<readonly string[]> {
  const name = command.slice(1);
  const extra = ctx.extra && Object.hasOwn(ctx.extra, name) ? ctx.extra[name] : undefined;
  return (await extra?.complete?.(words)) ?? [];
}

// Long because it is one switch over the `/mcp` subcommands, each branch a few lines.
async function runMcp(ctx: ShellContext, args: readonly string[], signal: AbortSignal): Promise<void> {
  const [sub, ...rest] = args;
  const { registry } = ctx;
  if (sub === undefined) {
    ctx.out(renderServers(registry.list(), ctx.session.io.homedir));
    return;
  }
  const flags = new Set(rest.filter((a) => a.startsWith('--')));
  const operands = rest.filter((a) => !a.startsWith('--'));
  const needServer = async (): Promise<string> => {
    const name = operands[0];
    if (!name) throw usage(`/mcp ${sub} needs a server name`, `e.g. /mcp ${sub} demo`);
    return (await ctx.session.host.server(name)).name;
  };
  switch (sub) {
    case 'connect': {
      const unknown = [...flags].filter((f) => f !== '--allow-all' && f !== '--shared');
      if (unknown.length)
        throw usage(`unknown option ${unknown[0]}`, '/mcp connect <server> [--allow-all] [--shared]');
      // Sandboxed, no answer lets the model in: say so rather than claim an allowance it lacks.
      if (flags.has('--allow-all') && ctx.guard.state.level === 'sandboxed')
        throw usage(
          '--allow-all allows nothing here: permission sandboxed gives the model no MCP access',
          'run with --permission trusted or yolo, or /mcp connect without --allow-all',
        );
      const name = await needServer();
      // Without --shared the connection is the console's own (NEXUS3's private connection).
      await registry.connect(name, flags.has('--shared') ? { shared: true } : { owner: ctx.agentId });
      const { tools, listingError } = registry.status(name);
      if (listingError) throw listingError;
      if (flags.has('--allow-all')) ctx.guard.allowAll(name, tools);
      ctx.out(
        say`${name}: connected, ${plural(tools.length, 'tool')}${flags.has('--allow-all') ? ', all allowed for the model' : ''}\n`,
      );
      return;
    }
    case 'disconnect': {
      const name = await needServer();
      await registry.disconnect(name);
      ctx.out(say`${name}: disconnected\n`);
      return;
    }
    case 'retry': {
      const name = await needServer();
      const tools = await registry.retry(name);
      ctx.out(say`${name}: ${plural(tools.length, 'tool')}\n`);
      return;
    }
    case 'tools':
    case 'resources':
    case 'prompts': {
      const names = operands[0] ? [await needServer()] : registry.list().map((s) => s.name);
      for (const name of names) {
        try {
          await listFor(ctx, sub, name, signal);
        } catch (error) {
          if (signal.aborted) throw error;
          // One broken server does not hide the others.
          writeError(ctx.session, toMcpxError(error));
        }
      }
      return;
    }
    case 'prompt': {
      const name = await needServer();
      const prompt = operands[1];
      if (!prompt)
        throw usage('/mcp prompt needs a prompt name', `e.g. /mcp prompt ${name} <name> key=value`);
      const args = promptArguments(
        await readArgumentSources(parseArgumentWords(operands.slice(2)), sources(ctx)),
      );
      const connection = await connected(ctx, name);
      const result = await connection.getPrompt(prompt, args, { signal });
      const parts = result.messages.map((m) => `[${m.role}]\n${renderContentBlock(m.content)}`);
      ctx.out(say`${result.description ? `# ${result.description}\n\n` : ''}${parts.join('\n\n')}\n`);
      return;
    }
    case 'read': {
      const name = await needServer();
      const uri = operands[1];
      if (!uri)
        throw usage(
          '/mcp read needs a resource URI',
          `e.g. /mcp read ${name} <uri> (see /mcp resources ${name})`,
        );
      const connection = await connected(ctx, name);
      const result = await connection.readResource(uri, { signal });
      for (const content of result.contents) {
        const text =
          'text' in content && typeof content.text === 'string'
            ? content.text
            : `[binary ${content.uri}${content.mimeType ? ` (${content.mimeType})` : ''}]`;
        ctx.out(say`${text.replace(/\n?$/, '\n')}`);
      }
      return;
    }
    default: {
      const guess = suggest(sub, MCP_SUBCOMMANDS);
      throw usage(
        `unknown /mcp command '${sub}'${guess ? ` — did you mean '/mcp ${guess}'?` : ''}`,
        `one of: ${MCP_SUBCOMMANDS.join(', ')} (or /mcp alone for the servers)`,
      );
    }
  }
}

async function listFor(
  ctx: ShellContext,
  kind: 'tools' | 'resources' | 'prompts',
  name: string,
  signal: AbortSignal,
): Promise<void> {
  if (kind === 'tools') {
    ctx.out(renderToolList(name, await toolsOf(ctx, name), ctx.columns));
    return;
  }
  const connection = await connected(ctx, name);
  const items =
    kind === 'resources'
      ? (await connection.listResources({ signal })).map(
          (r) => `  ${r.uri}  ${r.name}${r.description ? ` — ${r.description}` : ''}`,
        )
      : (await connection.listPrompts({ signal })).map(
          (p) =>
            `  ${p.name}(${(p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ')})${p.description ? `  ${p.description}` : ''}`,
        );
  const noun = kind === 'resources' ? 'resource' : 'prompt';
  ctx.out(say`${name}: ${plural(items.length, noun)}\n${items.map((i) => `${i}\n`).join('')}`);
}

/** The live connection of a server, connecting it on first use. */
async function connected(ctx: ShellContext, name: string) {
  const status = ctx.registry.status(name);
  if (status.connection && (status.state === 'ready' || status.state === 'busy')) return status.connection;
  return ctx.registry.connect(name);
}

/** A server's tools (after its allow/deny lists), connecting it on first use. */
export async function toolsOf(ctx: Pick<ShellContext, 'registry'>, name: string): Promise<readonly Tool[]> {
  const status = ctx.registry.status(name);
  if (!status.connection || (status.state !== 'ready' && status.state !== 'busy')) {
    await ctx.registry.connect(name);
  }
  await ctx.registry.toolsSettled(name);
  const { tools, listingError } = ctx.registry.status(name);
  // No tools because listing them failed is a failure to tell, not an empty server.
  if (listingError) throw listingError;
  return tools;
}

async function runAt(
  ctx: ShellContext,
  parsed: Extract<ShellLine, { kind: 'at' }>,
  line: string,
  signal: AbortSignal,
): Promise<void> {
  if (parsed.server === '') throw usage('name a server after @', 'e.g. @demo ? (Tab completes server names)');
  const server = (await ctx.session.host.server(parsed.server)).name;
  const tools = await toolsOf(ctx, server);
  if (parsed.tool === undefined) {
    if (parsed.help) {
      ctx.out(renderToolList(server, tools, ctx.columns));
      return;
    }
    throw usage(`name a tool of '${server}': @${server} <tool> key=value …`, `@${server} ? lists its tools`);
  }
  const tool = tools.find((t) => t.name === parsed.tool);
  if (!tool) {
    const guess = suggest(
      parsed.tool,
      tools.map((t) => t.name),
    );
    throw new McpxError(
      ErrorCode.UnknownTool,
      `'${server}' has no tool named '${parsed.tool}'${guess ? ` — did you mean '${guess}'?` : ''}`,
      { server, tool: parsed.tool, fixes: [`@${server} ? lists its ${plural(tools.length, 'tool')}`] },
    );
  }
  if (parsed.help) {
    ctx.out(renderToolHelp(server, tool, ctx.columns));
    return;
  }
  const args = parsed.json
    ? parseJsonArguments(parsed.json, line)
    : await typedArguments(ctx, server, tool, parsed.pairs);
  const bar = ctx.terminal ? createProgressBar(ctx.status ?? ((s) => ctx.err(s))) : undefined;
  let result: Awaited<ReturnType<ServerRegistry['callTool']>>;
  try {
    // The person's own call, made as `mcpx call` makes it (recorded, never put to the guard).
    result = await ctx.session.host.callTool(server, tool.name, args, {
      client: 'cli',
      signal,
      ...(bar ? { onProgress: (event) => bar.update(event) } : {}),
    });
  } finally {
    bar?.clear();
  }
  const text = forTerminal(renderContent(result.content ?? [], result.structuredContent));
  const shown = text.endsWith('\n') || text === '' ? text : say`${text}\n`;
  if (result.isError) ctx.err(say`${server}.${tool.name} reported an error:\n${shown}`);
  else ctx.out(shown);
  // A tool with an MCP App: the link that opens it with this call's input and result.
  await tellAppLink(
    { io: ctx.session.io, options: ctx.session.options, notice: (line) => ctx.err(say`${line}\n`) },
    server,
    tool,
    { args, result },
  );
}

/** `key=value` words typed by the tool's input schema, as `mcpx call` types them; help points at `@server tool ?`. */
async function typedArguments(
  ctx: ShellContext,
  server: string,
  tool: Tool,
  words: readonly string[],
): Promise<Record<string, unknown>> {
  const resolved = await readArgumentSources(parseArgumentWords(words), sources(ctx));
  const typed = typeArguments(resolved, tool.inputSchema);
  if (!typed.ok) throw argumentsError(typed.problems, server, tool.name, `@${server} ${tool.name} ?`);
  return typed.args;
}

/** `@file` relative to the working directory; no stdin: it is the terminal the console reads. */
function sources(ctx: ShellContext) {
  const { readFile } = cliArgumentSources({ cwd: ctx.session.io.cwd });
  return { readFile };
}

function usage(message: string, fix: string): McpxError {
  return new McpxError(ErrorCode.Usage, message, { fixes: [fix] });
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
