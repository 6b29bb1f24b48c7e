import type { StdioErrorScene } from '../stdio-errors.js';
import type { PackageInstallEvent, PackageInstallWatch } from './install-watch.js';
import { isNpmRunner, type PackageRunnerStart, recognisePackageRunner } from './recognise-runner.js';

/** What a stdio transport needs to know about the command it spawns: what every stdio error names. */
export type RunnerScene = StdioErrorScene;

/** How long a package runner's first install may take, unless the server's `install_timeout` says otherwise. */
export const DEFAULT_INSTALL_TIMEOUT_MS = 5 * 60_000;

/** How a transport treats the runner its server is started through. */
export interface RunnerPlan {
  readonly start: PackageRunnerStart;
  /**
   * npm's runners, whose install mcpx can watch: the watch once its module has loaded, or
   * `undefined` when the runner's folder is not known. Absent for the other runners.
   */
  readonly watch?: Promise<PackageInstallWatch | undefined>;
  /** The install budget (`install_timeout`). */
  readonly budgetMs: number;
}

/**
 * The plan for a server's command, or `undefined` when it is not started
 * through a package runner. Only npm's runners are watched; for the others
 * mcpx cannot tell an install from a start, so a first start gets the
 * install budget on top of the connect timeout (see docs/design-notes.md, "Package-runner starts").
 * The watch (npm's folder rules, the process tree, the rollback) loads only for an npm runner:
 * a server started as itself never compiles it.
 */
export function watchPackageRunner(
  scene: RunnerScene,
  options: {
    readonly budgetMs?: number | undefined;
    readonly onEvent?: ((event: PackageInstallEvent) => void) | undefined;
  } = {},
): RunnerPlan | undefined {
  const start = recognisePackageRunner(scene.command, scene.args);
  if (!start) return undefined;
  const budgetMs = options.budgetMs ?? DEFAULT_INSTALL_TIMEOUT_MS;
  if (!isNpmRunner(start)) return { start, budgetMs };
  const watch = import('./install-watch.js').then(({ watchNpmInstall }) =>
    watchNpmInstall(scene, start, budgetMs, options.onEvent),
  );
  return { start, watch, budgetMs };
}
