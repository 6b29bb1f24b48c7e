import type { LoadedConfig } from '../../config/index.js';
import type { CliContext } from './context.js';

/**
 * Which host-wide settings of repository files are not in force, one line each
 * (agent commands, where `permission` and `roots` matter).
 */
export function heldSettingsNotices(config: LoadedConfig): string[] {
  return config.heldSettings.map((held) => {
    const what = [held.permission ? `permission "${held.permission}"` : '', held.roots ? 'roots' : '']
      .filter(Boolean)
      .join(' and ');
    return held.reason === 'untrusted'
      ? `ignored ${what} from ${held.file}: not trusted yet — review it and run \`mcpx config trust\``
      : `ignored permission "${held.permission}" from ${held.file}: a project file can only lower the level you set`;
  });
}

/**
 * Say which host-wide settings of repository files are not in force (agent
 * commands, where `permission` and `roots` matter); none for an ad-hoc server.
 */
export async function noticeHeldSettings(session: CliContext): Promise<void> {
  if (session.adhoc) return;
  for (const line of heldSettingsNotices(await session.host.config())) session.notice(line);
}
