import type { PackageInstallEvent } from '../../host/index.js';
import { forTerminal } from '../../text/index.js';

/** The line a person sees about a package runner's install ("installing @x/y…"). */
export function installNotice(event: PackageInstallEvent): string {
  // Names and folders come from a config file, which may come from a repository: sanitized.
  const server = forTerminal(event.server);
  const packages = forTerminal(event.packages.join(', '));
  switch (event.phase) {
    case 'installing':
      return `${server}: ${event.runner} is installing ${packages}… (a first start can take a minute)`;
    case 'installed':
      return `${server}: installed ${packages} (${((event.elapsedMs ?? 0) / 1000).toFixed(1)} s)`;
    case 'waiting':
      return (
        `${server}: waiting for ${event.runner} to finish installing ${packages} before stopping it ` +
        '(Ctrl-C again stops it now and removes the unfinished install)'
      );
    case 'rolled-back':
      return `${server}: ${event.runner} was stopped before it finished installing ${packages}; removed ${forTerminal(event.folder ?? 'its folder')}`;
  }
}
