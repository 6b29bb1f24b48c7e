import { join } from 'node:path';
import { type CommonShape, knownKeys, readCommon, writeCommon } from '../common-shape.js';
import { mergeJsonServers, readJsonSections } from '../json-file.js';
import type { HostDialect } from '../types.js';

const shape: CommonShape = {
  vars: 'env-colon',
  urlKey: 'serverUrl',
  type: false,
  cwd: false,
  disabled: true,
  hostKeys: ['disabledTools'],
};

/** Windsurf: `~/.codeium/windsurf/mcp_config.json`, `mcpServers`, a remote server's `serverUrl`, `${env:VAR}`. */
export const windsurf: HostDialect = {
  id: 'windsurf',
  label: 'Windsurf',
  files: (ctx) => [{ path: join(ctx.homedir, '.codeium', 'windsurf', 'mcp_config.json'), scope: 'user' }],
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
