import type { PermissionLevel } from '../permissions/index.js';
import { usageError } from './global-options.js';
import type { CliSession } from './session.js';

const LEVELS: readonly PermissionLevel[] = ['yolo', 'trusted', 'sandboxed'];

/**
 * The permission level an agent command runs at: `--permission`, else the
 * host's (the config's level, as `Host.permissionLevel` resolves it).
 */
export async function permissionLevel(
  session: CliSession,
  flag: string | undefined,
): Promise<PermissionLevel> {
  if (flag === undefined) return session.permissionLevel();
  if (!LEVELS.includes(flag as PermissionLevel))
    throw usageError(`--permission must be one of ${LEVELS.join(', ')}, not '${flag}'`);
  return flag as PermissionLevel;
}
