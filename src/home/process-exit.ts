/**
 * Work to do, synchronously, when the process exits however it exits (`process.exit()`, the
 * event loop running dry, a signal handler's exit): the audit log's lines still in memory.
 * One `exit` listener for the process, whatever the number of logs, so a program that opens
 * many hosts never piles up listeners (Node would warn past ten).
 */
const hooks = new Set<() => void>();
let listening = false;

/** Run `hook` at exit (once, unless removed first); returns its removal. */
export function onProcessExit(hook: () => void): () => void {
  if (!listening) {
    listening = true;
    process.on('exit', runHooks);
  }
  hooks.add(hook);
  return () => hooks.delete(hook);
}

function runHooks(): void {
  for (const hook of [...hooks]) {
    hooks.delete(hook);
    try {
      hook();
    } catch {
      // One log's failure is its own (it says so through its onError); the others still write.
    }
  }
}
