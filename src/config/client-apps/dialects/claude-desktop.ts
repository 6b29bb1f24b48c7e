import { join } from 'node:path';
import { type CommonShape, mcpServersDialect } from '../common-shape.js';
import { appDataDir } from '../locations.js';
import type { ClientAppDialect } from '../types.js';

// Local servers only: the desktop app's file has no remote servers (those are added as connectors in its UI).
const shape: CommonShape = { vars: 'none', type: false, cwd: false, disabled: false, appKeys: [] };

/** Claude Desktop: `claude_desktop_config.json`, `mcpServers`, beside the app's own keys (`globalShortcut`). */
export const claudeDesktop: ClientAppDialect = mcpServersDialect(
  {
    id: 'claude-desktop',
    label: 'Claude Desktop',
    files: (ctx) => [{ path: join(appDataDir(ctx), 'Claude', 'claude_desktop_config.json'), scope: 'user' }],
  },
  shape,
);
