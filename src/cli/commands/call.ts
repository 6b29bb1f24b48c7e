import type { CallToolResult } from '@modelcontextprotocol/client';
import type { TaskStatusEvent } from '../../client/types.js';
import { suggest } from '../../config/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { renderContent } from '../../tools/render-content.js';
import { forTerminal } from '../../tools/sanitize.js';
import { ExitCode } from '../exit-codes.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';
import { createProgressBar } from '../output/progress-bar.js';
import { parseToolArguments } from '../parse-call-args.js';
import type { CliSession } from '../session.js';
import { resolveTarget } from '../target.js';

/** Flags of `mcpx call`. */
export interface CallFlags {
  /** Write images, audio and binary resources of the result to files in this directory. */
  readonly save?: string;
}

/** `mcpx call <server>.<tool> [k=v ...|JSON] [--save DIR]` */
export async function runCall(
  session: CliSession,
  target: string,
  rawArgs: readonly string[],
  flags: CallFlags = {},
): Promise<number> {
  const { io, options } = session;
  const { server, name } = await resolveTarget(session, target, 'tool');
  const args = parseToolArguments(rawArgs);
  const connection = await session.connect(server);
  const bar = io.stderrIsTTY && !options.json ? createProgressBar((s) => io.stderr.write(s)) : undefined;
  const onTaskStatus = taskStatusReporter(session, bar);
  let result: CallToolResult;
  try {
    result = await connection.callTool(name, args, {
      signal: io.signal,
      ...(bar ? { onProgress: (event) => bar.update(event) } : {}),
      ...(onTaskStatus ? { onTaskStatus } : {}),
    });
  } catch (error) {
    if (error instanceof McpxError && error.code === ErrorCode.ServerRejected) {
      throw await explainRejectedCall(connection, server.name, name, error);
    }
    throw error;
  } finally {
    bar?.clear();
  }
  if (options.json) {
    io.stdout.write(toJson(result));
  } else {
    const text = forTerminal(renderContent(result.content ?? [], result.structuredContent));
    (result.isError ? io.stderr : io.stdout).write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
  }
  if (flags.save !== undefined) await saveResult(session, flags.save, name, result);
  if (result.isError) {
    if (options.json) {
      const text = renderContent(result.content ?? []);
      io.stderr.write(
        toJson({ error: { code: ErrorCode.ToolError, message: text, server: server.name, tool: name } }, 0),
      );
    }
    return ExitCode.ToolError;
  }
  return ExitCode.Ok;
}

/** `--save`: the files go where the person said, each named here, and each is reported on stderr. */
async function saveResult(session: CliSession, dir: string, tool: string, result: CallToolResult) {
  const { saveBinaryContent } = await import('../output/save-content.js');
  const saved = await saveBinaryContent(dir, tool, result.content ?? []);
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
  session: CliSession,
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

/** A rejected call to a tool that does not exist says so, with a suggestion. */
async function explainRejectedCall(
  connection: Awaited<ReturnType<CliSession['connect']>>,
  server: string,
  tool: string,
  error: McpxError,
): Promise<McpxError> {
  const tools = await connection.listTools().catch(() => undefined);
  if (!tools || tools.some((t) => t.name === tool)) return error;
  const names = tools.map((t) => t.name);
  const guess = suggest(tool, names);
  return new McpxError(
    ErrorCode.UnknownTool,
    `'${server}' has no tool named '${tool}'${guess ? ` — did you mean '${guess}'?` : ''}`,
    {
      server,
      tool,
      cause: error,
      fixes: [`run \`mcpx tools ${server}\` to see its ${plural(names.length, 'tool')}`],
    },
  );
}
