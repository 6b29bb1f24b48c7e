import type { CallerElicitation } from '../daemon-client/light.js';
import { parseWithoutCycleTracking } from './acyclic-parsing.js';
import { startCompileCache } from './compile-cache.js';
import type { CliIo } from './io/io.js';
import type * as SignInPrompt from './terminal/sign-in-prompt.js';
import type * as TerminalPrompts from './terminal/terminal-prompts.js';

/**
 * The CLI's ES module side, behind the command's CommonJS entry (main.ts,
 * bundled as dist/bin/mcpx.cjs): everything but a warm daemon call starts
 * here. A warm call never loads it, so it pays neither Node's ES module loader
 * nor any of this code. Bundled under a fixed name (dist/bin/cli.js): the
 * entry imports it by path.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  parseWithoutCycleTracking();
  // Node >= 22.1 keeps V8's compiled code of the chunks loaded next between commands; a no-op on
  // Node 20. Its module shares a chunk with the error classes, which run() loads anyway.
  await startCompileCache({ env: io.env, homedir: io.homedir });
  const { run } = await import('./run.js');
  return run(argv, io);
}

/** The light caller lost its daemon mid-command: said as the direct path's daemon route says it. */
export async function reportDaemonVanished(
  io: CliIo,
  options: { readonly json: boolean; readonly verbose: boolean },
): Promise<number> {
  const [{ ErrorCode, McpxError }, { writeError }, { exitCodeFor }] = await Promise.all([
    import('../errors/index.js'),
    import('./target/report.js'),
    import('./io/exit-codes.js'),
  ]);
  const error = new McpxError(ErrorCode.ConnectionClosed, 'the mcpx daemon closed the connection', {
    causes: ['the daemon was stopped (mcpx daemon stop) or killed'],
    fixes: ['run the command again: a new daemon starts on demand'],
  });
  writeError({ io, options }, error);
  return exitCodeFor(error.code);
}

/**
 * A server's question (elicitation) the daemon's command could not ask itself,
 * asked at this terminal with the direct path's prompts; Ctrl-C there cancels
 * the command (`onInterrupt`). Undefined when it is neither a form nor a URL.
 */
export async function elicitAtTerminal(
  io: CliIo,
  server: string,
  request: CallerElicitation,
  onInterrupt: () => void,
): Promise<Readonly<Record<string, unknown>> | undefined> {
  const { terminalElicitation } = await import('./terminal/terminal-elicitation.js');
  // The caller's own terminal (stdin and stderr); without one the question is declined.
  const terminal = io.interactive ? io.terminal : undefined;
  const ask = terminalElicitation({ name: server }, { ...(terminal ? { terminal } : {}), onInterrupt });
  const signal = new AbortController().signal;
  // The params come from the daemon's SDK client, which parsed them as the request's own.
  if (request.mode === 'form' && ask.form) return ask.form(request.params as never, { signal });
  if (request.mode === 'url' && ask.url) return ask.url(request.params as never, { signal });
  return undefined;
}

// The prompts the CommonJS side asks for, each loaded on its first use: imported statically, they
// (and the text module they use, which shares the CLI's chunk) were compiled with this file,
// before `runCli` turns V8's compile cache on, so the CLI's largest chunk was never cached.

/** The sign-in prompt (terminal/sign-in-prompt.ts), for the light caller. */
export async function showSignIn(...args: Parameters<typeof SignInPrompt.showSignIn>): Promise<void> {
  return (await import('./terminal/sign-in-prompt.js')).showSignIn(...args);
}

/** A line of text asked at the process's terminal (terminal/terminal-prompts.ts). */
export async function askAtTerminal(
  ...args: Parameters<typeof TerminalPrompts.askAtTerminal>
): Promise<string> {
  return (await import('./terminal/terminal-prompts.js')).askAtTerminal(...args);
}

/** A yes/no question at the process's terminal (terminal/terminal-prompts.ts). */
export async function confirmAtTerminal(
  ...args: Parameters<typeof TerminalPrompts.confirmAtTerminal>
): Promise<boolean> {
  return (await import('./terminal/terminal-prompts.js')).confirmAtTerminal(...args);
}
