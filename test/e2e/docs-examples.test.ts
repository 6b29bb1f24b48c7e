/**
 * The TypeScript examples of the README and docs/*.md that import mcpx ('mcpx', 'mcpx/openai',
 * …) type-check against the built declarations, as a reader's program would: each ```ts block
 * is a module of its own, and the package's names resolve through package.json's "exports" to
 * dist/**\/*.d.ts. An example that names a moved export, a wrong option or a wrong type fails
 * here with its file and line.
 */
import { readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers/cli.js';
import { codeBlocks } from '../helpers/markdown.js';

let dir: { path: string; remove: () => Promise<void> };
beforeAll(async () => {
  dir = await tempDir('mcpx-docs-examples-');
  // The examples' other imports (node:*, @opentelemetry/…) resolve as in this repository.
  await symlink(join(repoRoot, 'node_modules'), join(dir.path, 'node_modules'), 'dir');
});
afterAll(() => dir.remove());

/** An example, where it is written, and the file it is checked as. */
interface Example {
  readonly where: string;
  readonly file: string;
  readonly line: number;
}

const importsMcpx = /\bfrom\s+['"]mcpx(?:\/[^'"]*)?['"]/;

async function examples(): Promise<Example[]> {
  const docs = (await readdir(join(repoRoot, 'docs')))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const found: Example[] = [];
  for (const doc of ['README.md', ...docs]) {
    const text = await readFile(join(repoRoot, doc), 'utf8');
    for (const block of codeBlocks(text)) {
      if (!['ts', 'typescript'].includes(block.language) || !importsMcpx.test(block.code)) continue;
      // .mts: an ES module whatever the folder says, so top-level await is allowed, as in the docs.
      const file = join(dir.path, `${doc.replace(/\W/g, '_')}_${block.line}.mts`);
      await writeFile(file, block.code);
      found.push({ where: `${doc}:${block.line}`, file, line: block.line });
    }
  }
  return found;
}

/** 'mcpx' and each 'mcpx/…' subpath, to the declarations package.json's "exports" names. */
async function packagePaths(): Promise<Record<string, string[]>> {
  const packageJson = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8'));
  const exportsMap = packageJson.exports as Record<string, { types: string }>;
  return Object.fromEntries(
    Object.entries(exportsMap).map(([subpath, target]) => [
      `${packageJson.name}${subpath === '.' ? '' : subpath.slice(1)}`,
      [join(repoRoot, target.types)],
    ]),
  );
}

it("every TypeScript example that imports mcpx type-checks against the package's declarations", async () => {
  const found = await examples();
  // README's library example, library.md's and observability.md's, at least.
  expect(found.length).toBeGreaterThanOrEqual(4);
  const program = ts.createProgram(
    found.map((e) => e.file),
    {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts', 'lib.esnext.disposable.d.ts'],
      types: ['node'],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      paths: await packagePaths(),
    },
  );
  const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const example = found.find((e) => e.file === diagnostic.file?.fileName);
    if (!example || diagnostic.file === undefined || diagnostic.start === undefined)
      return `TS${diagnostic.code}: ${text}`;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${example.where.split(':')[0]}:${example.line + line} (in the block at ${example.where}): TS${diagnostic.code}: ${text}`;
  });
  expect(problems).toEqual([]);
}, 60_000);
