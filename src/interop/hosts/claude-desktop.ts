import { join } from 'node:path';
import { type CommonShape, knownKeys, readCommon, writeCommon } from '../common-shape.js';
import { mergeJsonServers, readJsonSections } from '../json-file.js';
import { appDataDir } from '../locations.js';
import type { HostDialect } from '../types.js';

// Local servers only: the desktop app's file has no remote servers (those are added as connectors in its UI).
const shape: CommonShape = { vars: 'none', type: false, cwd: false, disabled: false, hostKeys: [] };

/** Claude Desktop: `claude_desktop_config.json`, `mcpServers`, beside the app's own keys (`globalShortcut`). */
export const claudeDesktop: HostDialect = {
  id: 'claude-desktop',
  label: 'Claude Desktop',
  files: (ctx) => [{ path: join(appDataDir(ctx), 'Claude', 'claude_desktop_config.json'), scope: 'user' }],
  read(text, file) {
    const { servers, warnings, notes } = readJsonSections(
      text,
      file.path,
      [['mcpServers']],
      (raw) => readCommon(raw, shape),
      knownKeys(shape),
    );
    return { servers, warnings, notes };
  },
  write: (entry) => writeCommon(entry, shape),
  merge: (text, servers) => mergeJsonServers(text, ['mcpServers'], servers),
};
