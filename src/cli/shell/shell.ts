import { toMcpxError } from '../../errors/index.js';
import { createHomeFiles } from '../../home/index.js';
import type { PermissionGuard } from '../../permissions/index.js';
import type { RegistryEvent, ServerRegistry } from '../../registry/index.js';
import {
  forTerminal,
  type LineEditor,
  openLineEditor,
  redrawLine,
  type SafeText,
  say,
  type Terminal,
} from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { writeError } from '../target/report.js';
import { commandNames, completeExtra, runShellLine, type ShellContext, toolsOf } from './commands.js';
import { complete } from './completer.js';
import { HISTORY_LIMIT, loadHistory } from './history.js';
import { parseLine } from './parse-line.js';

/** The prompt people type at. */
export const PROMPT = say`mcpx> `;

/** How the console's advice names listing a server's tools again: its own command, not the CLI's. */
export const retryInConsole = (server: string): string => `\`/mcp retry ${server}\``;

/** Where the console reads keys and draws, and how it takes Ctrl-C for itself. */
export interface ShellTerminal {
  /** Keys in, the line editor's drawing out (stderr: stdout stays for results). */
  readonly terminal: Terminal;
  /**
   * While a handler is set, Ctrl-C calls it instead of ending the command: a
   * console cancels the running call, not itself. Returns the unset function.
   */
  readonly onInterrupt?: (handler: () => void) => () => void;
}

/** What plain text (not `/` or `@`) does: the chat agent's turn, or a hint without a model. */
export type TextHandler = (text: string, signal: AbortSignal) => Promise<void>;

export interface ShellOptions {
  readonly session: CliContext;
  readonly registry: ServerRegistry;
  readonly guard: PermissionGuard;
  readonly agentId: string;
  readonly terminal: ShellTerminal;
  readonly onText: TextHandler;
  /** The first line shown. */
  readonly banner: SafeText;
  /** `/` commands the front end adds. */
  readonly extra?: ShellContext['extra'];
  /** Where progress bars draw (see `ShellContext.status`). */
  readonly status?: ShellContext['status'];
  /** A line's failure in the front end's own words, when it knows more (else the error as it is). */
  readonly explain?: (error: unknown) => unknown;
}

/**
 * The interactive shell: a line editor with completion and history, each
 * line run as a `/` command, an `@server` call or text for the agent. The
 * editor is closed while a line runs, so a consent menu or a progress bar has
 * the terminal to itself and Ctrl-C reaches the process (which cancels the
 * call). Resolves when the person leaves (Ctrl-D or /exit).
 */
export async function runShell(options: ShellOptions): Promise<void> {
  const { session, registry, terminal } = options;
  const { io } = session;
  const notice = (line: SafeText) => io.stderr.write(say`${line}\n`);
  const history = await loadHistory(createHomeFiles(session.host.home), (error) =>
    notice(say`history not kept: ${toMcpxError(error).message}`),
  );
  const ctx: ShellContext = {
    session,
    registry,
    guard: options.guard,
    agentId: options.agentId,
    // What the shell prints quotes servers; its own drawing (prompt, progress) goes elsewhere.
    out: (text) => io.stdout.write(text),
    err: (text) => io.stderr.write(text),
    columns: io.columns ?? 100,
    terminal: io.stderrIsTTY,
    ...(options.extra ? { extra: options.extra } : {}),
    ...(options.status ? { status: options.status } : {}),
  };
  let editor: LineEditor | undefined;
  const showNotice = (text: string) => {
    const line = say`${text}\n`;
    // A line is running: say it now, in place of a progress bar if one is drawn.
    if (!editor) io.stderr.write(io.stderrIsTTY ? redrawLine(line) : line);
    // Above the prompt, which is drawn again with what was typed so far.
    else editor.above(forTerminal(text));
  };
  const unsubscribe = registry.on((event) => {
    const line = describeEvent(event, registry);
    if (line) showNotice(line);
  });
  // The CLI's signal ends the session (the terminal hung up): the editor closes, the running line
  // is cancelled, and leaving closes every server.
  const onAbort = () => editor?.close();
  io.signal.addEventListener('abort', onAbort, { once: true });
  const readLine = async (): Promise<string | undefined> => {
    if (io.signal.aborted) return undefined;
    const rl = await openLineEditor(terminal.terminal, {
      prompt: PROMPT,
      history: history.lines(),
      historySize: HISTORY_LIMIT,
      complete: (line) =>
        complete(line, {
          commands: () => commandNames(ctx),
          servers: () => registry.list().map((s) => s.name),
          tools: (server) => toolsOf(ctx, server),
          commandArguments: (command, words) => completeExtra(ctx, command, words),
        }),
    });
    editor = rl;
    return new Promise<string | undefined>((resolve) => {
      let done = false;
      const finish = (line: string | undefined) => {
        if (done) return;
        done = true;
        editor = undefined;
        rl.close();
        resolve(line);
      };
      rl.on('line', (line) => finish(line));
      rl.on('close', () => finish(undefined));
      rl.on('SIGINT', () => {
        // Ctrl-C at the prompt drops what was typed; leaving is Ctrl-D's or /exit's job.
        rl.clearInput();
        terminal.terminal.write(say`^C\n(Ctrl-D or /exit to leave)\n`);
        rl.prompt();
      });
    });
  };

  notice(options.banner);
  try {
    for (;;) {
      const line = await readLine();
      if (line === undefined || io.signal.aborted) {
        terminal.terminal.write(say`\n`);
        return;
      }
      await history.add(line);
      if ((await runOne(options, ctx, line)) === 'exit') return;
    }
  } finally {
    io.signal.removeEventListener('abort', onAbort);
    unsubscribe();
  }
}

/** One line, cancelled by Ctrl-C while it runs; its failure is reported, never fatal. */
async function runOne(options: ShellOptions, ctx: ShellContext, line: string): Promise<'exit' | undefined> {
  const controller = new AbortController();
  const release = options.terminal.onInterrupt?.(() => controller.abort());
  const hangUp = () => controller.abort();
  options.session.io.signal.addEventListener('abort', hangUp, { once: true });
  try {
    const parsed = parseLine(line);
    if (parsed.kind === 'empty') return undefined;
    if (parsed.kind === 'text') {
      await options.onText(parsed.text, controller.signal);
      return undefined;
    }
    return await runShellLine(ctx, parsed, line, controller.signal);
  } catch (error) {
    if (controller.signal.aborted) {
      options.session.notice(line.trim().startsWith('@') ? 'cancelled (the server was told)' : 'cancelled');
      return undefined;
    }
    writeError(options.session, toMcpxError(options.explain ? options.explain(error) : error));
    return undefined;
  } finally {
    options.session.io.signal.removeEventListener('abort', hangUp);
    release?.();
  }
}

/** A one-line notice for a change people should hear about between prompts, or nothing. */
function describeEvent(event: RegistryEvent, registry: ServerRegistry): string | undefined {
  if (event.type === 'state') {
    if (event.state === 'ready' && event.previous === 'starting') {
      const { tools, listingError } = registry.status(event.server);
      // A failed listing was said as it failed (a warning), and its error follows: no "0 tools".
      return listingError ? undefined : `${event.server}: connected (${tools.length} tools)`;
    }
    if (event.state === 'error') return `${event.server}: error — ${event.error?.message ?? 'unknown'}`;
    if (event.state === 'stopped' && event.previous === 'stopping') return `${event.server}: stopped`;
    return undefined;
  }
  if (event.type === 'catalog') {
    const state = registry.status(event.server).state;
    // The first listing belongs to connecting; a later one is the server's news.
    if (state !== 'ready' && state !== 'busy') return undefined;
    return event.kind === 'tools'
      ? `${event.server}: tools changed (${event.tools?.length ?? 0} tools)`
      : `${event.server}: ${event.kind} changed`;
  }
  return `${event.server}: ${event.message}`;
}
