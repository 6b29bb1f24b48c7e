import type { PermissionLevel } from '../../permissions/index.js';
import type { CliIo } from '../io/io.js';
import { usageError } from './global-options.js';

const LEVELS: readonly PermissionLevel[] = ['yolo', 'trusted', 'sandboxed'];

/**
 * The level an agent command runs at from `--permission`, checked; absent, the host's
 * (the config's level, as `Host.permissionLevel` resolves it).
 *
 * @throws McpxError(Usage) for a level that is not one of `yolo`, `trusted`, `sandboxed`.
 */
export function permissionFlag(flag: string | undefined): PermissionLevel | undefined {
  if (flag !== undefined && !LEVELS.includes(flag as PermissionLevel))
    throw usageError(`--permission must be one of ${LEVELS.join(', ')}, not '${flag}'`);
  return flag as PermissionLevel | undefined;
}

/**
 * The config's profile a command is limited to: `--profile NAME`, else `MCPX_PROFILE`
 * (serve, chat, exec, the shell); undefined for none.
 */
export function profileFlag(flag: string | undefined, io: Pick<CliIo, 'env'>): string | undefined {
  return flag ?? (io.env.MCPX_PROFILE || undefined);
}
