import type { LoadedConfig } from '../config/index.js';

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
