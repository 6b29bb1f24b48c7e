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
  /**
   * Hidden: the console of one call's link (`cli/app-link/`). The call, as the terminal showed it,
   * is read from stdin; the link is printed, no browser opened, only that call's server connected;
   * it ends once its page was closed, or was never opened.
   */
  readonly forCall?: boolean;
}

/** A link's console nobody opened ends after this long. */
const UNOPENED_MS = 10 * 60_000;
/** A link's console whose last page closed ends after this long (a reload comes back sooner). */
const LEFT_MS = 30_000;

/**
 * `mcpx console`: the page (src/console/) on 127.0.0.1 over this command's host, its URL
 * printed and opened in the browser, until SIGINT/SIGTERM; then the page's server and the
 * host close, and every server with them. Permission questions are answered on the page.
 */
export async function runConsole(door: CliDoor, flags: ConsoleFlags): Promise<number> {
  const { io } = door;
  const port = portFlag(flags.port);
  const { createConsole, createPageQuestions, parseHeldCall } = await import('../../console/index.js');
  const held = flags.forCall ? parseHeldCall(await readAll(io.stdin)) : undefined;
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
    ...(held ? { held } : {}),
  }).catch(async (error: unknown) => {
    await spans.end();
    throw error;
  });
  const url =
    page.link ?? (flags.openApp ? `${page.url}&app=${encodeURIComponent(flags.openApp)}` : page.url);
  try {
    io.stdout.write(say`mcpx console: ${url}\n`);
    if (flags.open !== false && !held)
      await openBrowser(url).catch((error: unknown) =>
        session.notice(`mcpx console: could not open a browser (${String(error)}); open the URL above`),
      );
    // The servers connect while the page loads; each failure shows on the page, in its row.
    void session.host
      .registry()
      .then((registry) =>
        registry.connectAll({ signal: io.signal, ...(held ? { only: [held.server] } : {}) }),
      )
      .catch(() => {});
    await (held ? leftOrUnopened(page, io.signal) : stopped(io.signal));
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

/** All of stdin (a held call's JSON), at most the console's limit. */
async function readAll(stdin: NodeJS.ReadableStream | undefined): Promise<string> {
  if (!stdin) throw new McpxError(ErrorCode.Usage, '--for-call reads the call from stdin, and there is none');
  let text = '';
  stdin.setEncoding('utf8');
  for await (const chunk of stdin) {
    text += chunk as string;
    if (text.length > HELD_CALL_CHARS) break;
  }
  return text;
}

/** More than the console's limit, so that it is refused there with its reason. */
const HELD_CALL_CHARS = 16 * 1024 * 1024 + 1;

/**
 * A link's console lives while its page may come: until the signal, or once the page that
 * opened it has been closed for `LEFT_MS`, or when nobody opened it in `UNOPENED_MS`.
 */
function leftOrUnopened(
  page: { viewers(): { open: number; ever: boolean } },
  signal: AbortSignal,
): Promise<void> {
  const started = Date.now();
  let emptySince = started;
  return new Promise<void>((resolve) => {
    const done = () => {
      clearInterval(timer);
      resolve();
    };
    const timer = setInterval(() => {
      const { open, ever } = page.viewers();
      const now = Date.now();
      if (open > 0) emptySince = now;
      if ((ever && now - emptySince > LEFT_MS) || (!ever && now - started > UNOPENED_MS)) done();
    }, 1000);
    if (signal.aborted) done();
    signal.addEventListener('abort', done, { once: true });
  });
}

function stopped(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
