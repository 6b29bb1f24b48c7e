/**
 * Which files a Node process loads, recorded per pid: ES modules by a resolve hook, CommonJS
 * files (the light chunk is required, unseen by the hook) from the require cache at exit. For
 * the tests that prove a path loads none of the SDK, zod, ajv or the gateway.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ModuleLoads {
  /** `NODE_OPTIONS` for a process whose loads are recorded. */
  readonly nodeOptions: string;
  /** Every file `pid` loaded, once it has exited. */
  loadedFiles(pid: number | undefined): Promise<string[]>;
}

/** A recorder writing under `dir` (a test's own temp folder). */
export async function recordModuleLoads(dir: string): Promise<ModuleLoads> {
  const loads = join(dir, 'loads');
  await mkdir(loads, { recursive: true });
  const hook = join(dir, 'hook.mjs');
  const register = join(dir, 'register.mjs');
  await writeFile(
    hook,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(loads)} + '/' + process.pid, result.url + '\\n');
  return result;
}\n`,
  );
  await writeFile(
    register,
    `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
register(${JSON.stringify(hook)}, import.meta.url);
const required = createRequire(import.meta.url).cache;
process.on('exit', () => {
  const urls = Object.keys(required).map((file) => pathToFileURL(file).href + '\\n');
  appendFileSync(${JSON.stringify(loads)} + '/' + process.pid, urls.join(''));
});
`,
  );
  return {
    nodeOptions: `--import=${register}`,
    async loadedFiles(pid) {
      const text = await readFile(join(loads, String(pid)), 'utf8');
      return [...new Set(text.split('\n').filter((u) => u.startsWith('file:')))].map((u) => fileURLToPath(u));
    },
  };
}

/** What marks the SDK, zod, ajv and the gateway in the built chunks. */
const HEAVY = ['LATEST_PROTOCOL_VERSION', 'ZodError', 'ajv', 'GatewayCore'];

/** Which of `files` hold the SDK, zod, ajv or the gateway, each as `mark in file`. */
export async function heavyIn(files: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    for (const mark of HEAVY) if (text.includes(mark)) found.push(`${mark} in ${file}`);
  }
  return found;
}
