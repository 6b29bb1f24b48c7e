/**
 * The public API report (`npm run api`, api/report.mjs): the built declarations match the
 * checked-in api/*.api.md, and a copy of them with a violation planted fails the check.
 */

import { execFile } from 'node:child_process';
import { cp, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers/cli.js';

const run = promisify(execFile);
const script = join(repoRoot, 'api', 'report.mjs');
let dir: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  dir = await tempDir('mcpx-api-report-');
});
afterAll(() => dir.remove());

/** Runs the check; resolves its exit code and output whether it passes or fails. */
async function check(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], { cwd: repoRoot });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

it('the built declarations match the checked-in reports', async () => {
  const result = await check();
  expect(result).toEqual({ code: 0, stdout: 'api: 5 entry points match their reports\n', stderr: '' });
}, 60_000);

/**
 * The package as the check sees it, in `name` under the temporary folder: package.json and the
 * declarations, with this repository's dependencies (the SDK's types) beside them.
 */
async function copyPackage(name: string): Promise<string> {
  const copy = join(dir.path, name);
  await cp(join(repoRoot, 'dist'), join(copy, 'dist'), {
    recursive: true,
    filter: (source) => !/\.[cm]?js$|\.map$|\.md$/.test(source),
  });
  await symlink(join(repoRoot, 'node_modules'), join(copy, 'node_modules'), 'dir');
  await cp(join(repoRoot, 'package.json'), join(copy, 'package.json'));
  return copy;
}

it('fails on an export planted in the declarations, a public type left private, and an entry without a report', async () => {
  const copy = await copyPackage('planted');
  const packageJson = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8'));
  packageJson.exports['./suggest'] = { types: './dist/config/parse/suggest.d.ts' };
  await writeFile(join(copy, 'package.json'), JSON.stringify(packageJson));
  // An internal helper made public by the main entry.
  const index = join(copy, 'dist', 'index.d.ts');
  await writeFile(
    index,
    `${await readFile(index, 'utf8')}export { levenshtein } from './config/parse/suggest.js';\n`,
  );
  // A low-level function whose signature names a type no entry point exports.
  const lowLevel = join(copy, 'dist', 'low-level.d.ts');
  await writeFile(
    lowLevel,
    `${await readFile(lowLevel, 'utf8')}export declare function planted(): import('./config/load/options.js').ConfigFileCache;\n`,
  );

  const result = await check('--project', copy);
  expect(result.code).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain("api: the public API of 'mcpx' differs from api/mcpx.api.md");
  expect(result.stderr).toContain('+export function levenshtein(a: string, b: string): number;');
  expect(result.stderr).toMatch(
    /The symbol "ConfigFileCache" needs to be exported by the entry point low-level\.d\.ts \(ae-forgotten-export, in 'mcpx\/low-level'\)/,
  );
  expect(result.stderr).toContain("api: 'mcpx/suggest' has no report");
  // The other entry points are untouched, and say nothing.
  expect(result.stderr).not.toContain("'mcpx/openai'");
}, 60_000);

it('fails on an export without a doc comment, naming it and where it is declared', async () => {
  const copy = await copyPackage('undocumented');
  const host = join(copy, 'dist', 'host', 'host.d.ts');
  const declarations = await readFile(host, 'utf8');
  const stripped = declarations.replace(/\/\*\*[\s\S]*?\*\/\n(export declare function createHost)/, '$1');
  expect(stripped).not.toBe(declarations);
  await writeFile(host, stripped);

  const result = await check('--project', copy);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(
    /^api: \S*undocumented\/dist\/host\/host\.d\.ts:\d+: Missing documentation for "createHost"\. \(ae-undocumented, in 'mcpx'\)$/m,
  );
  // Only the export whose comment went is named: every other one has its comment.
  expect(result.stderr.match(/ae-undocumented/g)).toHaveLength(1);
}, 60_000);
