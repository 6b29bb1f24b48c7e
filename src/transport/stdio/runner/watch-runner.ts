import type { StdioErrorScene } from '../stdio-errors.js';
import {
  DEFAULT_INSTALL_TIMEOUT_MS,
  type PackageInstallEvent,
  PackageInstallWatch,
} from './install-watch.js';
import { npxFolderFor } from './npx-folder.js';
import { isNpmRunner, type PackageRunnerStart, recognisePackageRunner } from './recognise-runner.js';

/** What a stdio transport needs to know about the command it spawns: what every stdio error names. */
export type RunnerScene = StdioErrorScene;

/** How a transport treats the runner its server is started through. */
export interface RunnerPlan {
  readonly start: PackageRunnerStart;
  /** npm's runners, whose install mcpx can watch (its folder is known). */
  readonly watch?: PackageInstallWatch;
  /** The install budget (`install_timeout`). */
  readonly budgetMs: number;
}

/**
 * The plan for a server's command, or `undefined` when it is not started
 * through a package runner. Only npm's runners are watched; for the others
 * mcpx cannot tell an install from a start, so a first start gets the
 * install budget on top of the connect timeout (see docs/design-notes.md, "Package-runner starts").
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
  const folder = isNpmRunner(start) ? npxFolderFor(start, scene) : undefined;
  if (!folder) return { start, budgetMs };
  const watch = new PackageInstallWatch({
    serverName: scene.serverName,
    start,
    folder,
    budgetMs,
    platform: scene.platform,
    onEvent: options.onEvent,
  });
  return { start, watch, budgetMs };
}
