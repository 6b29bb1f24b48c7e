import type { ServerConfig } from '../../config/index.js';
import type { CliContext } from '../context/context.js';
import { usageError } from '../context/global-options.js';
import { splitTarget } from './split-target.js';

/**
 * Resolve `server.name` (or a bare `name` with one ad-hoc --stdio server) to
 * the server's config and the tool or prompt name.
 */
export async function resolveTarget(
  session: CliContext,
  target: string,
  noun: 'tool' | 'prompt',
): Promise<{ server: ServerConfig; name: string }> {
  const adhoc = session.adhoc;
  if (adhoc) {
    const split = splitTarget(target);
    if (split && split.server === adhoc.name) return { server: adhoc, name: split.name };
    return { server: adhoc, name: target };
  }
  const split = splitTarget(target);
  if (!split) {
    throw usageError(
      `'${target}' does not name a server: write <server>.<${noun}>`,
      `e.g. mcpx ${noun === 'tool' ? 'call demo.echo message=hi' : 'prompt demo.greeting name=Ada'}`,
    );
  }
  return { server: await session.host.server(split.server), name: split.name };
}
