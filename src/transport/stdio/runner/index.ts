/**
 * Servers started through a package runner (`npx`, `npm exec`, `pnpm dlx`,
 * `bunx`, `uvx`, `pipx run`): recognising them, npm's `_npx` folder rules,
 * watching a first install with a budget of its own, rolling back an install
 * that has to end unfinished, and naming a damaged npx folder.
 */

export {
  DEFAULT_INSTALL_TIMEOUT_MS,
  type PackageInstallEvent,
  PackageInstallWatch,
  rollBackInstallsNow,
} from './install-watch.js';
export { diagnoseNpxDamage } from './npx-damage.js';
export { npxFolderFor, npxHash } from './npx-folder.js';
export {
  commandBaseName,
  isNpmRunner,
  type PackageRunnerName,
  type PackageRunnerStart,
  recognisePackageRunner,
} from './recognise-runner.js';
export { watchPackageRunner } from './watch-runner.js';
