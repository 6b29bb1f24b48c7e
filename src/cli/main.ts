#!/usr/bin/env node
import { VERSION } from '../version.js';

// The command's entry, bundled as CommonJS (dist/bin/mcpx.cjs) with the light caller: a warm
// daemon call runs this file alone, without Node's ES module loader (~8 ms of a ~80 ms call).
// Every other command loads the CLI's ES module side (cli-entry.ts) from here.

const argv = process.argv.slice(2);
// Scripts ask for the version to detect mcpx; answer before loading the CLI.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
  process.exit(0);
}

async function main(): Promise<void> {
  // Imported here, not at the top: the version's answer above loads none of Node's modules they use.
  const [{ createProcessIo }, { runThroughDaemon }, { serveThroughDaemon }] = await Promise.all([
    import('./io/process-io.js'),
    import('./daemon-handoff/light-caller.js'),
    import('./daemon-handoff/thin-serve.js'),
  ]);
  const io = createProcessIo();
  // A command for a server the keep-alive daemon holds runs there, without loading the CLI's own
  // code; so does an `mcpx serve` session whose servers it all holds.
  const warm = (await serveThroughDaemon(argv, io)) ?? (await runThroughDaemon(argv, io));
  if (typeof warm === 'number') {
    process.exitCode = warm;
    return;
  }
  const { runCli } = await import('./cli-entry.js');
  // Handed back by the daemon after questions: the answers given there are not asked for again.
  process.exitCode = await runCli(argv, warm ?? io);
}

// No top-level await in CommonJS. A failure of mcpx itself (a command's own are reported by run())
// is an unhandled rejection: the error and exit code 1, as a rejected top-level await was.
void main();
