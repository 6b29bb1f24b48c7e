import { startCompileCache } from './compile-cache.js';
import type { CliIo } from './io.js';

/**
 * The CLI's ES module side, behind the command's CommonJS entry (main.ts,
 * bundled as dist/bin/mcpx.cjs): everything but a warm daemon call starts
 * here. A warm call never loads it, so it pays neither Node's ES module loader
 * nor any of this code. Bundled under a fixed name (dist/bin/cli.js): the
 * entry imports it by path.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
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
    import('./report.js'),
    import('./exit-codes.js'),
  ]);
  const error = new McpxError(ErrorCode.ConnectionClosed, 'the mcpx daemon closed the connection', {
    causes: ['the daemon was stopped (mcpx daemon stop) or killed'],
    fixes: ['run the command again: a new daemon starts on demand'],
  });
  writeError({ io, options }, error);
  return exitCodeFor(error.code);
}

export { showSignIn } from './sign-in-prompt.js';
export { askAtTerminal, confirmAtTerminal } from './terminal-prompts.js';
