/**
 * The forced exit's hook into the install watch (install-watch.ts), kept apart so a process that
 * never watched an install never loads the watch: the watch's module registers its rollback here
 * when it loads, and before that no install can be under way.
 */

let rollBack: (() => void) | undefined;

/** Called once by install-watch.ts as it loads: what {@link rollBackInstallsNow} runs. */
export function setInstallRollBack(run: () => void): void {
  rollBack = run;
}

/**
 * A forced exit (a second Ctrl-C) is under way: end every runner that is
 * installing and remove its unfinished folder, synchronously, so no
 * half-written install is left behind. Runners that already run their server
 * are left to the host's usual shutdown.
 */
export function rollBackInstallsNow(): void {
  rollBack?.();
}
