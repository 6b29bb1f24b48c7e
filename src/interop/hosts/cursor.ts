import { join } from 'node:path';
import { type CommonShape, knownKeys, readCommon, writeCommon } from '../common-shape.js';
import { mergeJsonServers, readJsonSections } from '../json-file.js';
import type { HostDialect } from '../types.js';

const shape: CommonShape = {
  vars: 'env-colon',
  urlKey: 'url',
  type: false,
  cwd: false,
  disabled: false,
  hostKeys: ['envFile', 'auth'],
};

/** Cursor: `~/.cursor/mcp.json` and a project's `.cursor/mcp.json`, `mcpServers`, `${env:VAR}`. */
export const cursor: HostDialect = {
  id: 'cursor',
  label: 'Cursor',
  files: (ctx) => [
    { path: join(ctx.homedir, '.cursor', 'mcp.json'), scope: 'user' },
    { path: join(ctx.cwd, '.cursor', 'mcp.json'), scope: 'project' },
  ],
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
