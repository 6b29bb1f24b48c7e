import { join } from 'node:path';
import { type CommonShape, mcpServersDialect } from '../common-shape.js';
import type { ClientAppDialect } from '../types.js';

const shape: CommonShape = {
  vars: 'env-colon',
  urlKey: 'url',
  type: false,
  cwd: false,
  disabled: false,
  appKeys: ['envFile', 'auth'],
};

/** Cursor: `~/.cursor/mcp.json` and a project's `.cursor/mcp.json`, `mcpServers`, `${env:VAR}`. */
export const cursor: ClientAppDialect = mcpServersDialect(
  {
    id: 'cursor',
    label: 'Cursor',
    files: (ctx) => [
      { path: join(ctx.homedir, '.cursor', 'mcp.json'), scope: 'user' },
      { path: join(ctx.cwd, '.cursor', 'mcp.json'), scope: 'project' },
    ],
  },
  shape,
);
