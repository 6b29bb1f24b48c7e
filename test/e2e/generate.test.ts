/**
 * `mcpx generate` (issue 45): modules for the test server (names no identifier can be, a schema
 * of every shape, a tool that tries to inject code), the hostile server and the reference npm
 * servers compile under strict TypeScript with a program using them; the program's calls go
 * through the host (the arguments arrive exactly, a denied tool is denied, the audit line is
 * written); `--check` passes on a fresh generation and names what changed after the server
 * changed, and so does a call at run time unless the program allows it.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot, runCli, tempDir, testServerPath } from '../helpers/cli.js';
import { everythingPath, filesystemPath, memoryPath } from '../helpers/servers.js';

const run = promisify(execFile);
const hostilePath = join(repoRoot, 'dist/testing/hostile-server.js');
let dir: { path: string; remove: () => Promise<void> };
let env: Record<string, string>;

/**
 * The config: every server of the test, the codegen tools as served now or `changed`; `deny`
 * switches off tools (or `prompts/get`, `resources/read`) of codegen and everything.
 */
function config(
  codegen: '1' | 'changed',
  deny: { readonly codegen?: readonly string[]; readonly everything?: readonly string[] } = {},
) {
  const node = (args: string[], extra: Record<string, unknown> = {}) => ({
    command: process.execPath,
    args,
    ...extra,
  });
  return JSON.stringify({
    mcpServers: {
      codegen: node([testServerPath], {
        env: { MCPX_TEST_CODEGEN: codegen },
        ...(deny.codegen ? { disabled_tools: deny.codegen } : {}),
      }),
      hostile: node([hostilePath]),
      everything: node([everythingPath, 'stdio'], deny.everything ? { disabled_tools: deny.everything } : {}),
      memory: node([memoryPath], { env: { MEMORY_FILE_PATH: join(dir.path, 'memory.jsonl') } }),
      filesystem: node([filesystemPath, dir.path]),
    },
  });
}

const mcpx = (args: string[], configFile: string) =>
  runCli(['--config', configFile, ...args], { cwd: dir.path, home: dir.path, timeoutMs: 60_000 });

async function tsc(): Promise<void> {
  const flags = ['--strict', '--exactOptionalPropertyTypes', '--noUncheckedIndexedAccess', '--skipLibCheck'];
  // The program reads process.argv: Node's types, from mcpx's own dev dependencies.
  const types = ['--typeRoots', join(repoRoot, 'node_modules/@types'), '--types', 'node'];
  const target = ['--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
  await run(
    process.execPath,
    [
      join(repoRoot, 'node_modules/typescript/bin/tsc'),
      ...flags,
      ...types,
      ...target,
      '--outDir',
      'out',
      'program.ts',
    ],
    {
      cwd: dir.path,
    },
  ).catch((error: { stdout: string }) => {
    throw new Error(`tsc failed:\n${error.stdout}`);
  });
}

const program = async (configFile: string, mode: string) => {
  const { stdout, stderr } = await run(
    process.execPath,
    [join(dir.path, 'out/program.js'), configFile, mode],
    {
      cwd: dir.path,
      env: { ...env, PATH: process.env.PATH ?? '/usr/bin:/bin' },
      timeout: 60_000,
    },
  );
  expect(stderr).toBe('');
  return JSON.parse(stdout) as Record<string, unknown>;
};

beforeAll(async () => {
  dir = await tempDir('mcpx-generate-');
  env = { HOME: dir.path, MCPX_HOME: join(dir.path, '.mcpx') };
  await writeFile(join(dir.path, 'mcp.json'), config('1'));
  await writeFile(join(dir.path, 'changed.json'), config('changed'));
  await writeFile(
    join(dir.path, 'denying.json'),
    config('1', { codegen: ['delete', 'prompts/get'], everything: ['resources/read'] }),
  );
  await writeFile(join(dir.path, 'package.json'), '{"type":"module"}');
  await mkdir(join(dir.path, 'node_modules'));
  // The program imports mcpx as a package user does: the built package, by its exports.
  await symlink(repoRoot, join(dir.path, 'node_modules/mcpx'), 'dir');
  await copyFile(
    join(import.meta.dirname, '../fixtures/generate/program.ts.txt'),
    join(dir.path, 'program.ts'),
  );
  const generated = await mcpx(
    ['generate', 'codegen', 'hostile', 'everything', 'memory', 'filesystem', '--out', 'gen'],
    join(dir.path, 'mcp.json'),
  );
  expect(generated.stderr).toBe('');
  expect(generated.code).toBe(0);
  const tree = await mcpx(
    ['generate', 'codegen', '--layout', 'tree', '--out', 'tree'],
    join(dir.path, 'mcp.json'),
  );
  expect(tree.stderr).toBe('');
  expect(tree.code).toBe(0);
}, 120_000);
afterAll(() => dir.remove());

it('writes modules that compile under strict TypeScript, and whose calls send exactly the arguments given', async () => {
  await tsc();
  const out = await program(join(dir.path, 'denying.json'), 'all');
  expect(out.order).toEqual({
    lines: [[{ sku: 'a', qty: 2 }], []],
    shipping: { method: 'post', address: '1 Road' },
    priority: 'high',
    note: null,
    gift: null,
  });
  // Each call sent the tool's real name and the schema's real property names.
  expect(out.getItem).toBe('{"id":7}');
  expect(out.getItem2).toBe('{"key":"k"}');
  // --layout tree: the same calls from an index, each tool's types in a file an agent reads alone.
  expect(out.tree).toEqual({ received: { lines: [], shipping: { method: 'pickup' } } });
  const toolFile = await readFile(join(dir.path, 'tree/codegen/getItem.ts'), 'utf8');
  expect(toolFile).toContain('export type Args = {\n  id: number;\n};');
  expect(toolFile).toContain(
    'export type Call = (args: Args, options?: HostCallOptions) => Promise<CallToolResult>;',
  );
  expect(out.filesRead).toBe('{"path":"/x","max-bytes":10}');
  expect(out.injection).toBe('{"a\\"b*/":"v"}');
  // Resources and prompts: under their own names beside the tools (`resources2` is the tool `resources`).
  expect(out.resources2).toBe('{}');
  expect(out.resource).toBe('read test://codegen/delete');
  expect(out.injectedResource).toBe('read test://inject/"); process.exit(11); ("');
  expect(out.template).toContain('"id":"2"');
  // A template's variable is percent-encoded: the value cannot reach another path.
  expect(out.encoded).toMatchObject({ message: expect.stringContaining('test://users/a%2Fb%20c') });
  // The tree's index: getURL and getUrl each from its own file, the tool `index` from neither index.ts.
  expect(out.treeCase).toEqual(['{"url":"u"}', '{"url":3}', '{}', expect.stringContaining('mcpx')]);
  const files = await readdir(join(dir.path, 'tree/codegen'));
  expect(files).toEqual(expect.arrayContaining(['getURL.ts', 'getUrl-2.ts', 'index-2.ts', 'index.ts']));
  expect(new Set(files.map((f) => f.toLowerCase())).size).toBe(files.length);
  // The hostile server's tool, prompt and resource, called by the module its poisoned text made.
  expect(JSON.stringify(out.hostile)).toContain('resource text');
  expect((out.hostile as unknown[]).filter((o) => typeof o !== 'string')).toEqual([]);
  expect(out.everything).toContain('hello');
  expect(out.everythingPrompt).toContain('Paris');
  // The config denies `prompts/get` of codegen and `resources/read` of everything: refused by the guard.
  expect(out.prompt).toMatchObject({ code: 'PERMISSION_DENIED' });
  expect(out.everythingResource).toMatchObject({ code: 'PERMISSION_DENIED' });
  expect(JSON.stringify(out.memory)).toContain('entities');
  expect(JSON.stringify(out.filesystem)).toContain(dir.path);
  // The config denies `delete`: the generated function is refused by the host's guard.
  expect(out.delete).toMatchObject({ code: 'PERMISSION_DENIED' });
  const audit = (await readFile(join(dir.path, '.mcpx/logs/audit.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { server: string; tool: string; decision?: { result: string } });
  expect(audit).toContainEqual(
    expect.objectContaining({
      server: 'codegen',
      tool: 'order',
      decision: expect.objectContaining({ result: 'allowed' }),
    }),
  );
  for (const [server, tool, result] of [
    ['codegen', 'delete', 'denied'],
    ['codegen', 'resources/read', 'allowed'],
    ['codegen', 'prompts/get', 'denied'],
    ['everything', 'prompts/get', 'allowed'],
    ['everything', 'resources/read', 'denied'],
  ]) {
    expect(audit).toContainEqual(
      expect.objectContaining({ server, tool, decision: expect.objectContaining({ result }) }),
    );
  }
}, 120_000);

it('keeps untrusted names and descriptions inside their literals and comments', async () => {
  const source = await readFile(join(dir.path, 'gen/codegen.ts'), 'utf8');
  // The description's `*/` cannot end its comment (the manifest keeps it inside a string literal).
  const code = source
    .split('\n')
    .filter((line) => !line.startsWith('export const manifest'))
    .join('\n');
  expect(code).not.toContain('*/ process.exit(8)');
  expect(code).toContain('*\\/ process.exit(8)');
  // So can a resource's and a prompt's name, description, MIME type, URI and argument.
  for (const n of [12, 13, 14, 15, 16]) {
    expect(code).not.toContain(`*/ process.exit(${n})`);
    expect(code).toContain(`*\\/ process.exit(${n})`);
  }
  expect(source).toContain('bound.read("test://inject/\\"); process.exit(11); (\\"", options)');
  expect(source).toContain('"a\\"b*/": string;');
  expect(source).toContain('bound.call("x\\"); process.exit(7); (\\"", args, options)');
  const hostile = await readFile(join(dir.path, 'gen/hostile.ts'), 'utf8');
  // eslint-disable-next-line no-control-regex
  expect(hostile).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e\u200b]/);
});

it('--check passes on a fresh generation and names what changed after the server changed', async () => {
  const fresh = await mcpx(['generate', '--check', 'codegen', '--out', 'gen'], join(dir.path, 'mcp.json'));
  expect(fresh.stderr).toBe('');
  expect(fresh.code).toBe(0);
  const freshTree = await mcpx(
    ['generate', '--check', '--layout', 'tree', 'codegen', '--out', 'tree'],
    join(dir.path, 'mcp.json'),
  );
  expect(freshTree.stdout).toContain('tree/codegen/index.ts: matches (codegen');
  expect(freshTree.code).toBe(0);
  const changed = await mcpx(
    ['generate', '--check', 'codegen', '--out', 'gen'],
    join(dir.path, 'changed.json'),
  );
  expect(changed.code).toBe(5);
  expect(changed.stderr).toContain("'codegen' no longer matches");
  expect(changed.stdout).toContain('gen/codegen.ts: differs (codegen');
  expect(changed.stdout).toContain("'archive' added");
  expect(changed.stdout).toContain("'delete' removed");
  expect(changed.stdout).toContain("'get-item' changed: parameter id: type number → string");
  expect(changed.stdout).toContain("'files.read' changed: description changed");
  expect(changed.stdout).toContain("resource 'test://codegen/delete' changed: description changed");
  expect(changed.stdout).toContain("resource 'test://codegen/notes' removed");
  expect(changed.stdout).toContain("prompt 'delete' changed: argument added: confirm (required)");
  // With --json, the same drift for a script: every change of every tool.
  const json = await mcpx(
    ['--json', 'generate', '--check', 'codegen', '--out', 'gen'],
    join(dir.path, 'changed.json'),
  );
  expect(json.code).toBe(5);
  const [report] = JSON.parse(json.stdout) as { drift: { tool: string; kind: string }[] }[];
  expect(report?.drift.map((d) => `${d.tool} ${d.kind}`)).toEqual([
    'archive added',
    'delete removed',
    'files.read changed',
    'get-item changed',
    'test://codegen/delete changed',
    'test://codegen/notes removed',
    'delete changed',
  ]);
  expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'TOOLS_CHANGED' } });
}, 120_000);

it('refuses at run time a call whose tool changed since generation, unless the program allows it', async () => {
  await tsc();
  const refused = await program(join(dir.path, 'changed.json'), 'drift');
  expect(refused.getItem).toMatchObject({
    code: 'TOOLS_CHANGED',
    causes: ["'get-item' changed: parameter id: type number → string"],
  });
  // A tool that did not change is called as before.
  expect(refused.echo).toBe('still here');
  const allowed = await program(join(dir.path, 'changed.json'), 'drift-allowed');
  expect(allowed.getItem).toBe('{"id":7}');
}, 120_000);

it('--layout tree removes the files of tools that are gone when it generates again, and no file the user wrote', async () => {
  const folder = join(dir.path, 'pruned/codegen');
  const first = await mcpx(
    ['generate', 'codegen', '--layout', 'tree', '--out', 'pruned'],
    join(dir.path, 'mcp.json'),
  );
  expect(first.code).toBe(0);
  expect(await readdir(folder)).toContain('delete_.ts');
  // The user's own files beside the generated ones: one of their own, one named as a generated file could be.
  await writeFile(join(folder, 'helpers.ts'), 'export const mine = 1;\n');
  await writeFile(join(folder, 'archive2.ts'), '// mine too\n');
  const again = await mcpx(
    ['generate', 'codegen', '--layout', 'tree', '--out', 'pruned'],
    join(dir.path, 'changed.json'),
  );
  expect(again.stderr).toBe('');
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('removed delete_.ts');
  const files = await readdir(folder);
  expect(files).not.toContain('delete_.ts');
  expect(files).toEqual(expect.arrayContaining(['archive.ts', 'helpers.ts', 'archive2.ts', 'index.ts']));
  expect(await readFile(join(folder, 'helpers.ts'), 'utf8')).toBe('export const mine = 1;\n');
  const checked = await mcpx(
    ['generate', '--check', '--layout', 'tree', 'codegen', '--out', 'pruned'],
    join(dir.path, 'changed.json'),
  );
  expect(checked.code).toBe(0);
}, 120_000);
