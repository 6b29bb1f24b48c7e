import { HOST_IDS, type HostContext, type HostId, isHostId } from '../../config/hosts/index.js';
import { suggest } from '../../config/index.js';
import type { CliContext } from '../context.js';
import { usageError } from '../global-options.js';

/** Where the hosts' files are, for this user on this machine. */
export function hostContext(session: CliContext): HostContext {
  const { io } = session;
  return { homedir: io.homedir, platform: process.platform, env: io.env, cwd: io.cwd };
}

/** A host named on the command line, or a usage error with a did-you-mean. */
export function hostId(name: string): HostId {
  if (isHostId(name)) return name;
  const guess = suggest(name, HOST_IDS);
  throw usageError(
    `unknown host '${name}'${guess ? ` — did you mean '${guess}'?` : ''}`,
    `hosts: ${HOST_IDS.join(', ')}`,
  );
}
