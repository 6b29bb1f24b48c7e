import { homedir } from 'node:os';
import { isatty } from 'node:tty';
// Past text/index.ts, which would bring the prompts and the content renderer into mcpx.cjs.
import type { SafeText } from '../../text/index.js';
import { Terminal } from '../../text/terminal.js';
import type { CliIo } from './io.js';

/**
 * The CLI's io for this process: its streams, environment and terminal, its
 * Ctrl-C, SIGTERM and SIGHUP, and prompts at its terminal. The one module that
 * holds `process.stdout` and `process.stderr`: what it hands on writes safe text
 * only (`CliIo`), draws on an opaque `Terminal`, or is stdout as a protocol's
 * byte channel (`protocolOut`, for `mcpx serve`). Built before anything
 * else loads, so it costs a warm call only what a warm call uses: stdin is
 * opened when a command reads it, and the prompts load with the CLI's ES module
 * side (cli-entry.ts) when a question is asked.
 * Long because the process's io is one object whose streams, Ctrl-C handling and terminal share state.
 */
export function createProcessIo(): CliIo {
  const controller = new AbortController();
  let interrupts = 0;
  // A console (mcpx shell) takes Ctrl-C while a call runs, to cancel that call only.
  let interruptHandler: (() => void) | undefined;
  const forcedExitHandlers = new Set<() => void>();
  /** Ctrl-C, as a signal or as a key a prompt in raw mode read. */
  const interrupt = (): void => {
    if (interruptHandler) {
      interruptHandler();
      return;
    }
    interrupts += 1;
    // First Ctrl-C cancels the request politely; a second one leaves at once.
    if (interrupts > 1) {
      for (const handler of forcedExitHandlers) {
        try {
          handler();
        } catch {
          // leaving all the same
        }
      }
      process.exit(130);
    }
    controller.abort();
  };
  process.on('SIGINT', interrupt);
  // A service manager's stop (mcpx serve under systemd, a container's stop): end like Ctrl-C, so
  // calls in flight finish and the servers are closed instead of left running in their own groups.
  process.on('SIGTERM', () => controller.abort());

  // The terminal closed (its window, an ssh session): cancel like Ctrl-C, so the command ends
  // and closes its servers, instead of dying by the signal and leaving their processes behind.
  let hungUp = false;
  // A long-running service (mcpx serve) takes SIGHUP to reload its config instead.
  let hangupHandler: (() => void) | undefined;
  process.on('SIGHUP', () => {
    if (hangupHandler) {
      hangupHandler();
      return;
    }
    hungUp = true;
    controller.abort();
  });

  // `mcpx tools | head`: the reader left; stop quietly like any Unix tool instead of a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      // A closed terminal cannot be written to; the servers are being closed all the same.
      if (hungUp && error.code === 'EIO') return;
      throw error;
    });
  }

  // isatty(0), not process.stdin.isTTY: opening stdin's stream costs a warm call ~3 ms it never uses.
  const interactive = isatty(0) && Boolean(process.stderr.isTTY);
  // Keys from stdin (opened when a prompt first reads it), drawing on stderr: stdout stays for results.
  const terminal = new Terminal({
    get input() {
      return process.stdin;
    },
    output: process.stderr,
  });
  const prompts = { terminal, interrupt, abort: () => controller.abort() };
  return {
    // Writers, not the streams: what the CLI writes for people is safe text (or bytes on stdout).
    stdout: { write: (chunk: SafeText | Uint8Array) => process.stdout.write(chunk) },
    stderr: { write: (chunk: SafeText) => process.stderr.write(chunk) },
    protocolOut: process.stdout,
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    homedir: homedir(),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    interactive,
    signal: controller.signal,
    cancel: interrupt,
    onInterrupt: (handler) => {
      interruptHandler = handler;
      return () => {
        if (interruptHandler === handler) interruptHandler = undefined;
      };
    },
    onForcedExit: (handler) => {
      forcedExitHandlers.add(handler);
    },
    onHangup: (handler) => {
      hangupHandler = handler;
      return () => {
        if (hangupHandler === handler) hangupHandler = undefined;
      };
    },
    ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
    ...(interactive
      ? {
          terminal,
          ask: async (question: SafeText, options: { readonly secret: boolean }) =>
            (await import('../cli-entry.js')).askAtTerminal(prompts, question, options),
          confirm: async (question: SafeText) =>
            (await import('../cli-entry.js')).confirmAtTerminal(prompts, question),
        }
      : {}),
  };
}
