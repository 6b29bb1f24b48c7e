import { resolve } from 'node:path';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { type ServerConfig, toolSwitchedOff } from '../../config/loading.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { appResourceUri, type TaskStatusEvent } from '../../host/index.js';
import { forTerminal, renderContent, say } from '../../text/index.js';
import { createCatalogue } from '../../tools/catalogue.js';
import { cliArgumentSources } from '../arguments/cli-sources.js';
import {
  argumentsError,
  parseArgumentWords,
  type ResolvedArguments,
  readArgumentSources,
  typeArguments,
} from '../arguments/type-arguments.js';
import { commandFeatures, createTerminalTurns, explainUnanswered } from '../context/command-features.js';
import type { CliContext, CliDoor } from '../context/context.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';
import { createProgressBar } from '../output/progress-bar.js';
import { writeError } from '../target/report.js';
import { resolveTarget } from '../target/target.js';
import { unknownToolError } from '../tool-help/unknown-tool.js';

type Connection = Awaited<ReturnType<CliContext['host']['connect']>>;

/** Flags of `mcpx call`. */
export interface CallFlags {
  /** Write images, audio and binary resources of the result to files in this directory. */
  readonly save?: string;
  /** A tool with an MCP App: open the link to it (the App with this call's input and result) in the browser. */
  readonly open?: boolean;
}

/** `mcpx call <server>.<tool> [k=v ...|JSON] [--save DIR]` */
export async function runCall(
  door: CliDoor,
  target: string,
  rawArgs: readonly string[],
  flags: CallFlags = {},
): Promise<number> {
  const { io, options } = door;
  // The progress bar and a server's questions share stderr: a question clears the bar and holds it.
  const turns = createTerminalTurns((s) => io.stderr.write(s), io.signal);
  const session = door.open({
    features: await commandFeatures(io, turns),
    offerConfigRoots: true,
    // A one-shot call hears no list changes.
    listChanges: false,
  });
  const { server, name } = await resolveTarget(session, target, 'tool');
  // Files and stdin are read before the server starts: a typo in a path fails at once.
  const resolved = await readArgumentSources(parseArgumentWords(rawArgs), cliArgumentSources(io));
  // `k=v` words are typed by the tool's schema, so only they need the tool list before the call;
  // JSON arguments go as they are and the list is fetched only to explain a failed call.
  const needsSchema = resolved.pairs.length > 0;
  refuseSwitchedOff(server, name);
  const connection = await session.host.connect(server, { listTools: needsSchema });
  const tool = needsSchema ? await findTool(session, connection, server, name) : undefined;
  const typed = typeArguments(resolved, tool?.inputSchema);
  if (!typed.ok)
    throw argumentsError(typed.problems, server.name, name, helpCommand(session, server.name, name));
  const args = typed.args;
  const bar = io.stderrIsTTY && !options.json ? createProgressBar(turns.draw) : undefined;
  const onTaskStatus = taskStatusReporter(session, bar);
  let result: CallToolResult;
  try {
    // A person's own call, as the shell's `@server tool` makes it: recorded, never put to the guard.
    result = await session.host.callTool(server.name, name, args, {
      client: 'cli',
      signal: io.signal,
      ...(bar ? { onProgress: (event) => bar.update(event) } : {}),
      ...(onTaskStatus ? { onTaskStatus } : {}),
    });
  } catch (error) {
    if (error instanceof McpxError && error.code === ErrorCode.ServerRejected) {
      throw (await explainFailedCall(session, connection, server, name, resolved)) ?? error;
    }
    throw explainUnanswered(error, session, 'mcpx call');
  } finally {
    bar?.clear();
  }
  if (result.isError && !needsSchema) {
    // Not checked before the call: an unknown tool or missing arguments are said as mcpx says them.
    const explained = await explainFailedCall(session, connection, server, name, resolved);
    if (explained) throw explained;
  }
  if (options.json) {
    io.stdout.write(toJson(result));
  } else {
    const text = forTerminal(renderContent(result.content ?? [], result.structuredContent));
    (result.isError ? io.stderr : io.stdout).write(
      text.endsWith('\n') || text === '' ? text : say`${text}\n`,
    );
  }
  if (flags.save !== undefined) await saveResult(session, flags.save, name, result);
  if (!options.json || flags.open)
    await tellApp(session, connection, server, name, tool, args, result, flags.open);
  if (result.isError) {
    if (options.json) {
      const text = renderContent(result.content ?? []);
      writeError(session, new McpxError(ErrorCode.ToolError, text, { server: server.name, tool: name }));
    }
    return ExitCode.ToolError;
  }
  return ExitCode.Ok;
}

/**
 * A tool with an MCP App: say so, with a link that opens it with this call's input and result
 * (`apps/app-link.ts`). Told from the definition at hand (fetched for `k=v` arguments); else,
 * for a person at a terminal or with `--open` only, the tool list is fetched for it after the
 * call: a script's call pays no extra round trip.
 */
async function tellApp(
  session: CliContext,
  connection: Connection,
  server: ServerConfig,
  name: string,
  tool: Tool | undefined,
  args: Record<string, unknown>,
  result: CallToolResult,
  open: boolean | undefined,
) {
  let known = tool;
  if (!known && (session.io.stderrIsTTY || open)) {
    const tools = await connection.listTools({ signal: session.io.signal }).catch(() => []);
    known = tools.find((t) => t.name === name);
  }
  if (!known) return;
  if (!appResourceUri(known)) {
    if (open) session.notice(`--open: ${server.name}.${name} has no MCP App to open`);
    return;
  }
  // Loaded only for a tool with an App: a cold call's chunk carries no link console or browser opener.
  const { tellAppLink } = await import('../apps/app-link.js');
  await tellAppLink(session, server.name, known, { args, result, ...(open ? { open } : {}) });
}

/** `--save`: the files go where the person said, each named here, and each is reported on stderr. */
async function saveResult(session: CliContext, dir: string, tool: string, result: CallToolResult) {
  const { saveBinaryContent } = await import('../output/save-content.js');
  // Against the command's folder, not the process's: inside the daemon they differ (a light caller's call).
  const saved = await saveBinaryContent(resolve(session.io.cwd, dir), tool, result.content ?? []);
  for (const file of saved) {
    const mime = file.mimeType ? ` ${forTerminal(file.mimeType)}` : '';
    session.notice(`saved ${file.kind}${mime} (${plural(file.bytes, 'byte')}) to ${file.path}`);
  }
  if (saved.length === 0) session.notice('nothing saved: the result has no image, audio or binary resource');
}

/**
 * How a task's status reaches the person: redrawn in place on a terminal, one line per
 * change with --verbose elsewhere, nothing otherwise (stdout stays the result's alone).
 */
function taskStatusReporter(
  session: CliContext,
  bar: ReturnType<typeof createProgressBar> | undefined,
): ((event: TaskStatusEvent) => void) | undefined {
  const describe = (event: TaskStatusEvent) =>
    `task ${forTerminal(event.taskId).slice(0, 64)} ${event.status}${event.statusMessage ? `: ${forTerminal(event.statusMessage).slice(0, 120)}` : ''}`;
  if (session.options.verbose) {
    return (event) => {
      bar?.clear();
      session.notice(describe(event));
    };
  }
  if (!bar) return undefined;
  return (event) => bar.status(describe(event));
}

/**
 * One server's tools as `mcpx call` sees them: the catalogue every front end names tools by,
 * for one server under its own names, with the entry's allow / deny lists as the policy.
 */
function serverCatalogue(config: ServerConfig, tools: readonly Tool[]) {
  return createCatalogue(
    tools.map((item) => ({ server: config.name, item })),
    { naming: 'transparent', offers: (_server, tool) => toolSwitchedOff(config, tool) === undefined },
  );
}

/**
 * The tool's definition, to type the arguments by its schema. A tool the server does not list
 * is refused with a did-you-mean before any call. When the listing itself fails (a flaky
 * server), the call still goes ahead with arguments typed by the rule without a schema.
 */
async function findTool(
  session: CliContext,
  connection: Connection,
  config: ServerConfig,
  name: string,
): Promise<Tool | undefined> {
  const server = config.name;
  // The registry listed the tools when it connected: no second round trip in the common case.
  const registry = await session.host.registry();
  await registry.toolsSettled(server);
  const listed = serverCatalogue(config, registry.status(server).tools).resolve(name);
  if (listed) return listed.item;
  // Not there: its listing failed; ask the server.
  let tools: Tool[];
  try {
    tools = await connection.listTools({ signal: session.io.signal });
  } catch (error) {
    if (session.io.signal.aborted) throw error;
    session.notice(
      `could not list ${server}'s tools (${forTerminal((error as Error).message).slice(0, 200)}): arguments are sent as JSON where they parse, else as text`,
    );
    return undefined;
  }
  const catalogue = serverCatalogue(config, tools);
  const tool = catalogue.resolve(name);
  if (tool) return tool.item;
  throw unknownToolError(server, name, catalogue.names, (guess) => helpCommand(session, server, guess));
}

/**
 * A tool the person's own config switches off is not there, as in `tools`, `list` and for
 * agents (the catalogue's policy, `toolSwitchedOff`): refused by its name before the server
 * is started.
 */
function refuseSwitchedOff(config: ServerConfig, name: string): void {
  const why = toolSwitchedOff(config, name);
  if (why === undefined) return;
  throw new McpxError(
    ErrorCode.PermissionDenied,
    `'${name}' of '${config.name}' is switched off in the config`,
    {
      server: config.name,
      tool: name,
      origin: config.origin,
      causes: [
        why === 'denied' ? `it is in the server's disabled_tools` : `it is not in the server's allowed_tools`,
      ],
      fixes: [`edit allowed_tools / disabled_tools of '${config.name}' to call it`],
    },
  );
}

/** How to show one tool's help, for this invocation (ad-hoc servers need their flag again). */
function helpCommand(session: CliContext, server: string, tool: string): string {
  const { stdio, url } = session.options;
  const adhoc = stdio ? ` --stdio ${JSON.stringify(stdio)}` : url ? ` --url ${url}` : '';
  return `mcpx${adhoc} tools ${server}.${tool}`;
}

/**
 * A failed call, explained from the tool list fetched now: a tool the server does not list
 * gets the unknown-tool error with its did-you-mean, arguments its schema refuses get the
 * arguments error. Undefined when the list explains nothing (the failure stands as it is).
 */
async function explainFailedCall(
  session: CliContext,
  connection: Connection,
  config: ServerConfig,
  name: string,
  resolved: ResolvedArguments,
): Promise<McpxError | undefined> {
  const server = config.name;
  const tools = await connection.listTools({ signal: session.io.signal }).catch(() => undefined);
  if (!tools) return undefined;
  const catalogue = serverCatalogue(config, tools);
  const tool = catalogue.resolve(name)?.item;
  if (!tool) {
    return unknownToolError(server, name, catalogue.names, (guess) => helpCommand(session, server, guess));
  }
  const typed = typeArguments(resolved, tool.inputSchema);
  return typed.ok
    ? undefined
    : argumentsError(typed.problems, server, name, helpCommand(session, server, name));
}
