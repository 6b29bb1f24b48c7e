#!/usr/bin/env node
import * as nodeModule from 'node:module';
import { homedir } from 'node:os';
import { VERSION } from '../version.js';
import type { CliIo } from './io.js';

const argv = process.argv.slice(2);
// Scripts ask for the version to detect mcpx; answer before loading the CLI.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
  process.exit(0);
}

// Node >= 22.1 can keep V8's compiled code of the chunks loaded next between commands (Node 20 has no such API).
if (typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function') {
  const { startCompileCache } = await import('./compile-cache.js');
  await startCompileCache({ env: process.env, homedir: homedir() });
}

const controller = new AbortController();
let interrupts = 0;
// A console (mcpx shell) takes Ctrl-C while a call runs, to cancel that call only.
let interruptHandler: (() => void) | undefined;
/** Ctrl-C, as a signal or as a key a prompt in raw mode read. */
function interrupt(): void {
  if (interruptHandler) {
    interruptHandler();
    return;
  }
  interrupts += 1;
  // First Ctrl-C cancels the request politely; a second one leaves at once.
  if (interrupts > 1) process.exit(130);
  controller.abort();
}
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

const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);

const io: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
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
  onHangup: (handler) => {
    hangupHandler = handler;
    return () => {
      if (hangupHandler === handler) hangupHandler = undefined;
    };
  },
  ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
  ...(interactive
    ? {
        ask: async (question: string, { secret }: { readonly secret: boolean }) => {
          const prompts = await import('@inquirer/prompts');
          const context = { input: process.stdin, output: process.stderr, clearPromptOnDone: false };
          try {
            return secret
              ? await prompts.password({ message: question, mask: '*' }, context)
              : await prompts.input({ message: question }, context);
          } catch (error) {
            // Ctrl-C at the prompt (raw mode): the command is cancelled as SIGINT would cancel it.
            interrupt();
            throw error;
          }
        },
        confirm: async (question: string) => {
          const { createInterface } = await import('node:readline/promises');
          const rl = createInterface({ input: process.stdin, output: process.stderr });
          // The line editor puts the terminal in raw mode, so Ctrl-C arrives as a key, not as
          // SIGINT: treat it as the signal would be (cancel, exit 130) instead of a failed question.
          const interrupted = new Promise<never>((_, reject) =>
            rl.once('SIGINT', () => {
              controller.abort();
              process.stderr.write('\n');
              reject(new Error('interrupted at the prompt'));
            }),
          );
          try {
            const answer = await Promise.race([rl.question(`${question} [y/N] `), interrupted]);
            return /^y(es)?$/i.test(answer.trim());
          } finally {
            rl.close();
          }
        },
      }
    : {}),
};

// A command for a server the keep-alive daemon holds runs there, without loading the CLI's own code.
const { runThroughDaemon } = await import('./light-caller.js');
const warm = await runThroughDaemon(argv, io);
if (typeof warm === 'number') process.exitCode = warm;
else {
  const { run } = await import('./run.js');
  // Handed back by the daemon after questions: the answers given there are not asked for again.
  process.exitCode = await run(argv, warm ?? io);
}
