import type { PermissionLevel } from '../permissions/index.js';
import { usageError } from './global-options.js';
import type { CliSession } from './session.js';

const LEVELS: readonly PermissionLevel[] = ['yolo', 'trusted', 'sandboxed'];

/**
 * Set the level an agent command runs at from `--permission` (the session's
 * host then guards at it), else leave the host's (the config's level, as
 * `Host.permissionLevel` resolves it); resolves to the level in force.
 * `command` names it in a refusal when there is no terminal to ask on.
 */
export async function usePermissionFlag(
  session: CliSession,
  flag: string | undefined,
  command: string,
): Promise<PermissionLevel> {
  if (flag !== undefined && !LEVELS.includes(flag as PermissionLevel))
    throw usageError(`--permission must be one of ${LEVELS.join(', ')}, not '${flag}'`);
  session.usePermission(flag as PermissionLevel | undefined, command);
  return session.permissionLevel();
}
