import { join } from 'node:path';
import { type CommonShape, mcpServersDialect } from '../common-shape.js';
import type { ClientAppDialect } from '../types.js';

const shape: CommonShape = {
  vars: 'env-colon',
  urlKey: 'serverUrl',
  type: false,
  cwd: false,
  disabled: true,
  appKeys: ['disabledTools'],
};

/** Windsurf: `~/.codeium/windsurf/mcp_config.json`, `mcpServers`, a remote server's `serverUrl`, `${env:VAR}`. */
export const windsurf: ClientAppDialect = mcpServersDialect(
  {
    id: 'windsurf',
    label: 'Windsurf',
    files: (ctx) => [{ path: join(ctx.homedir, '.codeium', 'windsurf', 'mcp_config.json'), scope: 'user' }],
  },
  shape,
);
