import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from './cli.js';

/**
 * The README's library example exactly as written there (the `ts` block under "## As a
 * library"), saved as a program in `dir`, where `import 'mcpx'` finds this package through a
 * link in `dir/node_modules`. The tests run what a reader copies, so the README stays true.
 */
export async function readmeLibraryExample(dir: string): Promise<string> {
  const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.split(/^## As a library$/m)[1] ?? '';
  const code = /^```ts\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (code === undefined) throw new Error("README.md has no ```ts block under '## As a library'");
  await mkdir(join(dir, 'node_modules'), { recursive: true });
  await symlink(repoRoot, join(dir, 'node_modules', 'mcpx'), 'dir').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const program = join(dir, 'readme-example.mjs');
  await writeFile(program, code);
  return program;
}
