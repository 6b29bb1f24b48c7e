import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import type { LoadedConfig } from '../../../src/config/types.js';
import { McpxError } from '../../../src/errors/index.js';

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh directory under the OS temp dir, removed after the test. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcpx-config-'));
  created.push(dir);
  return dir;
}

/** Write `files` (relative path → content) under `root`, creating directories. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const path = join(root, relative);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
}

/** Load `text` as the only config file (explicit layer, no builtin). */
export async function loadText(
  text: string,
  env: Record<string, string | undefined> = {},
): Promise<LoadedConfig & { file: string; dir: string }> {
  const dir = await tempDir();
  const file = join(dir, 'mcp.json');
  await writeFile(file, text);
  const config = await loadConfig({
    cwd: dir,
    env,
    home: join(dir, 'home'),
    configFile: file,
    includeBuiltin: false,
  });
  return { ...config, file, dir };
}

/** The McpxError that loading `text` throws, plus the file's path. */
export async function loadError(text: string): Promise<{ error: McpxError; file: string }> {
  const dir = await tempDir();
  const file = join(dir, 'mcp.json');
  await writeFile(file, text);
  try {
    await loadConfig({ cwd: dir, env: {}, home: join(dir, 'home'), configFile: file, includeBuiltin: false });
  } catch (error) {
    expect(error).toBeInstanceOf(McpxError);
    return { error: error as McpxError, file };
  }
  throw new Error(`expected loading to fail:\n${text}`);
}
