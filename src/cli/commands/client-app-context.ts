import {
  CLIENT_APP_IDS,
  type ClientAppContext,
  type ClientAppId,
  isClientAppId,
} from '../../config/client-apps/index.js';
import { suggest } from '../../config/index.js';
import type { CliContext } from '../context/context.js';
import { usageError } from '../context/global-options.js';

/** Where the client apps' files are, for this user on this machine. */
export function clientAppContext(session: CliContext): ClientAppContext {
  const { io } = session;
  return { homedir: io.homedir, platform: process.platform, env: io.env, cwd: io.cwd };
}

/** A client app named on the command line, or a usage error with a did-you-mean. */
export function clientAppId(name: string): ClientAppId {
  if (isClientAppId(name)) return name;
  const guess = suggest(name, CLIENT_APP_IDS);
  throw usageError(
    `unknown client app '${name}'${guess ? ` — did you mean '${guess}'?` : ''}`,
    `client apps: ${CLIENT_APP_IDS.join(', ')}`,
  );
}
