import { join, resolve } from 'node:path';
import { type CommonShape, knownKeys, readCommon, writeCommon } from '../common-shape.js';
import { mergeJsonServers, readJsonSections } from '../json-file.js';
import type { ClientAppDialect } from '../types.js';

const shape: CommonShape = {
  vars: 'dollar',
  urlKey: 'url',
  type: true,
  cwd: false,
  disabled: false,
  appKeys: [],
};

/**
 * Claude Code: `~/.claude.json` holds the user's servers at the top level and
 * each project's private ones under `projects[<absolute path>]`; a project's
 * shared servers are in its `.mcp.json`. `${VAR}` and `${VAR:-default}` are
 * mcpx's own spelling.
 */
export const claudeCode: ClientAppDialect = {
  id: 'claude-code',
  label: 'Claude Code',
  files: (ctx) => [
    { path: join(ctx.homedir, '.claude.json'), scope: 'user' },
    { path: join(ctx.cwd, '.mcp.json'), scope: 'project' },
  ],
  read(text, file, ctx) {
    const sections =
      file.scope === 'user'
        ? [['mcpServers'], ['projects', resolve(ctx.cwd), 'mcpServers']]
        : [['mcpServers']];
    const { servers, warnings, notes } = readJsonSections(
      text,
      file.path,
      sections,
      (raw) => readCommon(raw, shape),
      knownKeys(shape),
    );
    return { servers, warnings, notes };
  },
  write: (entry) => writeCommon(entry, shape),
  merge: (text, servers) => mergeJsonServers(text, ['mcpServers'], servers),
};
