import { ErrorCode, McpxError } from '../../errors/index.js';
import { say } from '../../text/index.js';
import type { CliDoor } from '../context/context.js';
import { ExitCode } from '../io/exit-codes.js';
import { openBrowser } from '../terminal/open-browser.js';

/** Flags of `mcpx console`. */
export interface ConsoleFlags {
  /** False with `--no-open`: print the URL, open no browser. */
  readonly open?: boolean;
  /** The loopback port (default: one the system picks). */
  readonly port?: string;
  /** `--open-app SERVER.TOOL`: the page opens that tool's MCP App once the tool is listed. */
  readonly openApp?: string;
}

/**
 * `mcpx console`: the page (src/console/) on 127.0.0.1 over this command's host, its URL
 * printed and opened in the browser, until SIGINT/SIGTERM; then the page's server and the
 * host close, and every server with them. Permission questions are answered on the page.
 */
export async function runConsole(door: CliDoor, flags: ConsoleFlags): Promise<number> {
  const { io } = door;
  const port = portFlag(flags.port);
  const { createConsole, createPageQuestions } = await import('../../console/index.js');
  const questions = createPageQuestions();
  // Started before the host connects anything: each server's connect is drawn from its spans.
  const spans = await (await import('../tracing.js')).watchCommandSpans();
  const session = door.open({
    command: 'mcpx console',
    answers: { who: 'the person at the console page', approver: questions.approver },
    offerConfigRoots: true,
    // The built-in demo only when nothing else is configured, as `mcpx serve` offers it.
    omitBuiltinWhenConfigured: true,
    reconnect: 'lazy',
    // How `mcpx daemon status` (and the page's daemon section) names this process among its sessions.
    daemon: { label: 'mcpx console' },
  });
  const { currentStatus } = await import('./daemon.js');
  const page = await createConsole(session.host, {
    port,
    signal: io.signal,
    questions,
    watchSpans: spans.watch,
    daemonStatus: () => currentStatus(session),
  }).catch(async (error: unknown) => {
    await spans.end();
    throw error;
  });
  const url = flags.openApp ? `${page.url}&app=${encodeURIComponent(flags.openApp)}` : page.url;
  try {
    io.stdout.write(say`mcpx console: ${url}\n`);
    if (flags.open !== false)
      await openBrowser(url).catch((error: unknown) =>
        session.notice(`mcpx console: could not open a browser (${String(error)}); open the URL above`),
      );
    // The servers connect while the page loads; each failure shows on the page, in its row.
    void session.host
      .registry()
      .then((registry) => registry.connectAll({ signal: io.signal }))
      .catch(() => {});
    await stopped(io.signal);
  } finally {
    await page.close();
    await spans.end();
  }
  return ExitCode.Ok;
}

function portFlag(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new McpxError(ErrorCode.Usage, `--port ${value} is not a port`, {
      fixes: ['give a number from 1 to 65535, or leave --port out for one the system picks'],
    });
  return port;
}

function stopped(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
