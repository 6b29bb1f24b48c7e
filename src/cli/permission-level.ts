import type { PermissionLevel } from '../permissions/index.js';
import { usageError } from './global-options.js';
import type { CliSession } from './session.js';

const LEVELS: readonly PermissionLevel[] = ['yolo', 'trusted', 'sandboxed'];

/**
 * The permission level an agent command runs at: `--permission`, else the
 * config's `permission` (a repository's file may only lower the person's own,
 * and only once trusted: see `LoadedConfig.heldSettings`), else `trusted`.
 * An ad-hoc server (`--stdio`, `--url`) runs without the config's.
 */
export async function permissionLevel(
  session: CliSession,
  flag: string | undefined,
): Promise<PermissionLevel> {
  const configured = session.adhoc() ? undefined : (await session.config()).permission;
  const level = (flag ?? configured ?? 'trusted') as PermissionLevel;
  if (!LEVELS.includes(level))
    throw usageError(`--permission must be one of ${LEVELS.join(', ')}, not '${flag}'`);
  return level;
}
