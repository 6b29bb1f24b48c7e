import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers/cli.js';

// The size rule `npm run check` runs (scripts/check-sizes.mjs), run as check runs it: on a tree of
// planted fixtures, where each room too large must be reported with its file and line and each one
// that says why it is long must pass, and on the real tree, which must be clean.

const script = join(repoRoot, 'scripts/check-sizes.mjs');

async function check(root: string): Promise<{ code: number; reported: string[]; stderr: string }> {
  try {
    await promisify(execFile)(process.execPath, [script, root]);
    return { code: 0, reported: [], stderr: '' };
  } catch (error) {
    const { code, stderr } = error as { code: number; stderr: string };
    // `file:line  kind: message`, one line each.
    const reported = stderr.split('\n').flatMap((line) => {
      const found = /^(\S+?):(\d+) {2}(\w+): /.exec(line);
      return found ? [`${found[1]}:${found[2]} ${found[3]}`] : [];
    });
    return { code, reported, stderr };
  }
}

/** `n` statements, one a line. */
const body = (n: number) => Array.from({ length: n }, (_, i) => `  total += ${i};`).join('\n');

describe('the size rule on planted fixtures', () => {
  let tree: { path: string; remove: () => Promise<void> };
  let result: Awaited<ReturnType<typeof check>>;

  beforeAll(async () => {
    tree = await tempDir('mcpx-size-rule-');
    const planted: Record<string, string> = {
      // 101 lines from `function` to `}`: one over.
      'src/long.ts': `let total = 0;\nexport function long() {\n${body(99)}\n}\n`,
      // Exactly 100: at the limit, passes.
      'src/at-limit.ts': `let total = 0;\nexport function atLimit() {\n${body(98)}\n}\n`,
      // A long arrow function and a long method, neither saying why.
      'src/arrow.ts': `let total = 0;\nexport const arrow = () => {\n${body(120)}\n};\n`,
      'src/method.ts': `let total = 0;\nexport class Walker {\n  walk() {\n${body(120)}\n  }\n}\n`,
      // The same, each saying why directly above it.
      'src/commented.ts': `let total = 0;\n// Long because each step reads the one before.\nexport function commented() {\n${body(120)}\n}\n`,
      'src/commented-arrow.ts': `let total = 0;\n// Long because the steps share one closure.\nexport const arrow = () => {\n${body(120)}\n};\n`,
      'src/jsdoc.ts': `let total = 0;\nexport class Walker {\n  /**\n   * Walks.\n   * Long because it is one state machine.\n   */\n  walk() {\n${body(120)}\n  }\n}\n`,
      // An executor: the comment is above the statement that holds it.
      'src/executor.ts': `let total = 0;\n// Long because it is its executor.\nexport function run() {\n  // Long because the steps share the promise's closure.\n  return new Promise<void>((done) => {\n${body(120)}\n    done();\n  });\n}\n`,
      // A comment that mentions the words elsewhere, not as its start: still a violation.
      'src/not-why.ts': `let total = 0;\n// Not long because of anything.\nexport function notWhy() {\n${body(120)}\n}\n`,
      // A file of 801 lines (short functions only).
      'src/big.ts': `${Array.from({ length: 801 }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n`,
      // 800 lines: passes.
      'src/full.ts': `${Array.from({ length: 800 }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n`,
    };
    for (const [path, text] of Object.entries(planted)) {
      await mkdir(dirname(join(tree.path, path)), { recursive: true });
      await writeFile(join(tree.path, path), text);
    }
    result = await check(tree.path);
  }, 60_000);

  afterAll(() => tree?.remove());

  it('fails, counting what it found', () => {
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/size rule: 5 rooms too large/);
  });

  it('reports a function, an arrow function and a method over 100 lines, at their lines', () => {
    expect(result.reported).toContain('src/long.ts:2 function');
    expect(result.reported).toContain('src/arrow.ts:2 function');
    expect(result.reported).toContain('src/method.ts:3 function');
    expect(result.stderr).toMatch(/long is 101 lines, over 100/);
  });

  it('reports a comment that does not start with "Long because"', () => {
    expect(result.reported).toContain('src/not-why.ts:3 function');
  });

  it('reports a file over 800 lines', () => {
    expect(result.reported).toContain('src/big.ts:1 file');
    expect(result.stderr).toMatch(/801 lines, over 800/);
  });

  it('passes what is at the limit and what says why it is long', () => {
    expect(result.reported).toHaveLength(5);
    expect(result.reported.join('\n')).not.toMatch(/at-limit|commented|jsdoc|executor|full/);
  });
});

it('the real tree is clean', { timeout: 60_000 }, async () => {
  const result = await check(repoRoot);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
});
