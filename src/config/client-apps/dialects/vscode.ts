// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references are the config syntax these functions translate
import { dirname, join } from 'node:path';
import { inputRequests, inputVariable } from '../../resolve/input-variable.js';
import { type CommonShape, knownKeys, readCommon, writeCommon } from '../common-shape.js';
import { isRecord } from '../entry.js';
import { mergeJsonServers, readJsonSections } from '../json-file.js';
import { appDataDir } from '../locations.js';
import type { ClientAppDialect } from '../types.js';

const shape: CommonShape = {
  vars: 'env-colon',
  urlKey: 'url',
  type: true,
  cwd: true,
  disabled: false,
  appKeys: ['envFile', 'dev', 'gallery', 'version'],
};

/**
 * VS Code: the user's `mcp.json` in the Code user folder and a workspace's
 * `.vscode/mcp.json`, `servers` plus `inputs`. `${env:X}` becomes `${X}`,
 * `${workspaceFolder}` and `${userHome}` are resolved, and `${input:id}`
 * becomes a reference to `MCPX_INPUT_<ID>` (see `inputVariable`), with a note
 * saying which variable to set.
 */
export const vscode: ClientAppDialect = {
  id: 'vscode',
  label: 'VS Code',
  files: (ctx) => [
    { path: join(appDataDir(ctx), 'Code', 'User', 'mcp.json'), scope: 'user' },
    { path: join(ctx.cwd, '.vscode', 'mcp.json'), scope: 'project' },
  ],
  read(text, file, ctx) {
    const workspace = file.scope === 'project' ? dirname(dirname(file.path)) : ctx.cwd;
    const used = new Set<string>();
    const mapString = (s: string) =>
      s
        .replaceAll('${workspaceFolder}', workspace)
        .replaceAll('${userHome}', ctx.homedir)
        .replace(/\$\{input:([^}]+)\}/g, (_, id: string) => {
          used.add(id);
          return `\${${inputVariable(id)}}`;
        });
    const read = readJsonSections(
      text,
      file.path,
      [['servers']],
      (raw) => readCommon(raw, shape, mapString),
      knownKeys(shape),
    );
    const inputs = Array.isArray((read.doc.value as { inputs?: unknown } | undefined)?.inputs)
      ? ((read.doc.value as { inputs: unknown[] }).inputs.filter(isRecord) as Record<string, unknown>[])
      : [];
    const notes = [...used].map((id) => {
      const input = inputs.find((i) => i.id === id);
      const what = typeof input?.description === 'string' ? ` (${input.description})` : '';
      const secret = input?.password === true ? 'a secret, so it was not copied; ' : '';
      return `VS Code asks for input '${id}'${what}: ${secret}set ${inputVariable(id)} in the environment mcpx runs in`;
    });
    const requests = inputRequests(inputs, file.path).filter((r) => used.has(r.id));
    return {
      servers: read.servers,
      warnings: read.warnings,
      notes: [...read.notes, ...notes],
      inputs: [
        ...requests,
        ...[...used]
          .filter((id) => !requests.some((r) => r.id === id))
          .map((id) => ({ id, variable: inputVariable(id), password: false, file: file.path })),
      ],
    };
  },
  write: (entry) => writeCommon(entry, shape),
  merge: (text, servers) => mergeJsonServers(text, ['servers'], servers),
};
