import { execFile } from 'node:child_process';
import { appendFile, cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers/cli.js';

// The terminal rule `npm run check` runs (scripts/check-terminal-writes.mjs), run as check runs it:
// on a copy of src/ with a violation of each kind planted, where each must be reported with its
// file and line, and on the real tree, which must be clean.

const script = join(repoRoot, 'scripts/check-terminal-writes.mjs');

async function check(root: string): Promise<{ code: number; reported: string[]; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, [script, root]);
    return { code: 0, reported: [], stderr: '' };
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string };
    // `file:line:column  rule: the code`, one line each.
    const reported = stderr.split('\n').flatMap((line) => {
      const found = /^(\S+?):(\d+):\d+ {2}(\w+): /.exec(line);
      return found ? [`${found[1]}:${found[2]} ${found[3]}`] : [];
    });
    return { code, reported, stderr };
  }
}

describe('the terminal rule on a copy of src/ with violations planted', () => {
  let tree: { path: string; remove: () => Promise<void> };
  let result: Awaited<ReturnType<typeof check>>;
  let retryLine: number;

  beforeAll(async () => {
    tree = await tempDir('mcpx-terminal-rule-');
    await cp(join(repoRoot, 'src'), join(tree.path, 'src'), { recursive: true });
    const planted: Record<string, string> = {
      // A form field asked the way the old elicitation did: the prompt library, a raw default.
      'src/cli/raw-field.ts': [
        "import { input } from '@inquirer/prompts';",
        'export const ask = (message: string, preset: string) =>',
        '  input({ message, default: preset }, { input: process.stdin, output: process.stderr });',
        '',
      ].join('\n'),
      // The library printing, and a line editor of its own.
      'src/registry/loud.ts': [
        "import { createInterface } from 'node:readline';",
        'export const loud = (text: string) => console.warn(text);',
        'export const editor = () => createInterface({ input: process.stdin });',
        '',
      ].join('\n'),
      // SafeText made by a cast, a device opened, a descriptor written, stderr taken apart.
      'src/cli/sneaky.ts': [
        "import { writeSync } from 'node:fs';",
        "import type { SafeText } from '../text/index.js';",
        'export const vouch = (text: string) => text as SafeText;',
        "export const tty = '/dev/tty';",
        'export const raw = (text: string) => writeSync(2, text);',
        'const { stderr } = process;',
        'export const err = stderr;',
        '',
      ].join('\n'),
      // stdout's protocol channel used for text; a Terminal's streams taken by their symbol.
      'src/cli/commands/misuse.ts': [
        "import type { CliIo } from '../io.js';",
        'export const say = (io: CliIo, text: string) => io.protocolOut?.write(text);',
        "export const streams = Symbol.for('mcpx.terminal.streams');",
        '',
      ].join('\n'),
    };
    for (const [path, text] of Object.entries(planted)) {
      await mkdir(dirname(join(tree.path, path)), { recursive: true });
      await writeFile(join(tree.path, path), text);
    }
    // And a real command writing past its io.
    const retry = join(tree.path, 'src/cli/commands/retry.ts');
    retryLine = (await readFile(retry, 'utf8')).split('\n').length;
    await appendFile(retry, "process.stdout.write('\\u001b]0;pwned\\u0007');\n");
    result = await check(tree.path);
  }, 60_000);

  afterAll(() => tree?.remove());

  it('fails', () => {
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/terminal rule: \d+ ways to the terminal past the funnel/);
  });

  it('reports the prompt library and process.stderr outside the funnel', () => {
    expect(result.reported).toContain('src/cli/raw-field.ts:1 module');
    expect(result.reported).toContain('src/cli/raw-field.ts:3 process');
  });

  it('reports console and readline in the library', () => {
    expect(result.reported).toContain('src/registry/loud.ts:1 module');
    expect(result.reported).toContain('src/registry/loud.ts:2 console');
  });

  it('reports a cast to SafeText, a terminal device, a write to fd 2 and stderr destructured', () => {
    expect(result.reported).toContain('src/cli/sneaky.ts:3 cast');
    expect(result.reported).toContain('src/cli/sneaky.ts:4 device');
    expect(result.reported).toContain('src/cli/sneaky.ts:5 device');
    expect(result.reported).toContain('src/cli/sneaky.ts:6 process');
  });

  it("reports stdout's protocol channel and a Terminal's streams used elsewhere", () => {
    expect(result.reported).toContain('src/cli/commands/misuse.ts:2 protocol');
    expect(result.reported).toContain('src/cli/commands/misuse.ts:3 streams');
  });

  it('reports a write planted in a real command, at its line', () => {
    expect(result.reported).toContain(`src/cli/commands/retry.ts:${retryLine} process`);
  });

  it('reports nothing of the copied tree itself (its allow-listed writers pass)', () => {
    expect(result.reported.every((r) => /raw-field|loud|sneaky|misuse|retry/.test(r))).toBe(true);
    expect(result.reported).toHaveLength(11);
  });
});

it('the real tree is clean', { timeout: 60_000 }, async () => {
  const result = await check(repoRoot);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
});
