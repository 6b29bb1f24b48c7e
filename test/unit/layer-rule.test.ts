import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseOptions, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers/cli.js';

// The layer rule `npm run check` runs (.dependency-cruiser.cjs), run here through dependency-cruiser's
// API on a planted tree, where each rule must catch its violation, and on the real tree.

const configFile = join(repoRoot, '.dependency-cruiser.cjs');
const baselineFile = join(repoRoot, '.dependency-cruiser-known-violations.json');

let options: ICruiseOptions;

beforeAll(async () => {
  options = await extractDepcruiseOptions(configFile);
});

async function cruiseTree(baseDir: string): Promise<ICruiseResult> {
  const tsConfig = join(baseDir, 'tsconfig.json');
  // As the CLI does: the tsconfig named in the options, parsed for the transpiler.
  const { output } = await cruise(
    ['src'],
    { ...options, baseDir, tsConfig: { fileName: tsConfig } },
    {},
    { tsConfig: extractTSConfig(tsConfig) },
  );
  return output as ICruiseResult;
}

const described = (violations: readonly IViolation[]) =>
  violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();

describe('the layer rule on a planted tree', () => {
  let tree: { path: string; remove: () => Promise<void> };
  let found: string[];

  beforeAll(async () => {
    tree = await tempDir('mcpx-layers-');
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
        include: ['src'],
      }),
      'src/errors/index.ts': 'export const e = 1;\n',
      // Clean: down through an index.ts, and down past one through the allow-list.
      'src/config/index.ts': "import { e } from '../errors/index.js';\nexport const c = e;\n",
      'src/config/load/load.ts': 'export const load = 1;\n',
      'src/config/load/discover.ts': 'export const discover = 1;\n',
      'src/client/era-cache.ts': 'export const cache = 1;\n',
      'src/client/server-connection.ts': 'export type Connection = number;\nexport const connection = 1;\n',
      // (a) a folder cycle: registry and permissions import each other.
      'src/registry/index.ts':
        "import type { p } from '../permissions/index.js';\nexport const r: typeof p = 1;\n",
      'src/permissions/index.ts': "import { r } from '../registry/index.js';\nexport const p = r;\n",
      // (b) an upward import, with no cycle: home is below agent.
      'src/agent/index.ts': 'export const a = 1;\n',
      'src/home/upward.ts': "import { a } from '../agent/index.js';\nexport const u = a;\n",
      // (c) a new import past another folder's index.ts, beside allowed ones: config/load/discover.ts
      // (on the allow-list) and client/era-cache.ts (on the lazy list: by `await import` only, so
      // the static import of server-connection.ts, on the same list, is reported). A type-only
      // import loads nothing, so it needs no exception: config/types.ts, client/types.ts.
      // (g) config/types.ts importing its own folder (a type of load/load.ts), and two modules of
      // config/ importing each other (in one sub-folder, so no folder cycle).
      'src/config/types.ts':
        "import type { load } from './load/load.js';\nexport type Shape = typeof load;\n",
      'src/config/entry/normalize.ts':
        "import { read } from './readers.js';\nexport const normalize = read;\nexport type Draft = string;\n",
      'src/config/entry/readers.ts':
        "import type { Draft } from './normalize.js';\nexport const read: Draft = '';\n",
      'src/client/types.ts': 'export type Era = string;\n',
      'src/tools/index.ts': [
        "import { c } from '../config/index.js';",
        "import { load } from '../config/load/load.js';",
        "import { discover } from '../config/load/discover.js';",
        "import { connection } from '../client/server-connection.js';",
        "import type { Shape } from '../config/types.js';",
        "import type { Era } from '../client/types.js';",
        "import type { Connection } from '../client/server-connection.js';",
        'export const t: Connection & Shape = c + load + discover + connection;',
        "export const era: Era = '2025';",
        "export const cache = () => import('../client/era-cache.js');",
        '',
      ].join('\n'),
      // (d) cli/ imported from outside it, by a sibling front door.
      'src/cli/output/table.ts': 'export const table = 1;\n',
      'src/testing/server.ts': "import { table } from '../cli/output/table.js';\nexport const s = table;\n",
      // (e) cli/ reaching the protocol past the host, through client's own index.ts.
      'src/client/index.ts': 'export type Era = string;\n',
      'src/cli/era.ts': "import type { Era } from '../client/index.js';\nexport const era: Era = 'modern';\n",
      // (f) a module loaded only lazily (LOADED_LAZILY) may import a lazy-only module statically;
      // a static import of it is reported, a lazy or a type-only one is not.
      'src/transport/http/index.ts': 'export const http = 1;\n',
      'src/auth/sign-in-flow.ts':
        "import { http } from '../transport/http/index.js';\nexport const flow = http;\n",
      'src/auth/sign-in.ts': "export const signIn = () => import('./sign-in-flow.js');\n",
      'src/auth/eager.ts': "import { flow } from './sign-in-flow.js';\nexport const eager = flow;\n",
      'src/auth/typed.ts':
        "import type { flow } from './sign-in-flow.js';\nexport const typed: typeof flow = 1;\n",
      // A folder no layer declares.
      'src/extras/a.ts': "import { e } from '../errors/index.js';\nexport const x = e;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(tree.path, path)), { recursive: true });
      await writeFile(join(tree.path, path), text);
    }
    found = described((await cruiseTree(tree.path)).summary.violations);
  });

  afterAll(async () => {
    await tree?.remove();
  });

  it('reports a folder cycle', () => {
    expect(found).toContain('no-folder-cycle: src/registry → src/permissions');
    expect(found).toContain('no-folder-cycle: src/permissions → src/registry');
  });

  it('reports an import from a lower layer to a higher one', () => {
    expect(found).toContain('no-upward-import: src/home/upward.ts → src/agent/index.ts');
    expect(found).toContain('no-upward-import: src/registry/index.ts → src/permissions/index.ts');
  });

  it("reports a new import past a folder's index.ts, not one on the allow-lists", () => {
    expect(found).toContain('not-through-index: src/tools/index.ts → src/config/load/load.ts');
    expect(found).toContain('not-through-index: src/tools/index.ts → src/client/server-connection.ts');
    expect(found.join('\n')).not.toContain('discover');
    expect(found.join('\n')).not.toContain('era-cache');
  });

  it('needs no exception for a type-only import past index.ts, which loads nothing', () => {
    expect(found.join('\n')).not.toContain('→ src/config/types.ts');
    expect(found.join('\n')).not.toContain('src/client/types.ts');
    // The value import of the same lazy-only module is the one reported, once.
    expect(found.filter((line) => line.endsWith('src/client/server-connection.ts'))).toEqual([
      'not-through-index: src/tools/index.ts → src/client/server-connection.ts',
    ]);
  });

  it('reports an import of cli/ from outside it, and between front doors', () => {
    expect(found).toContain('no-import-of-cli: src/testing/server.ts → src/cli/output/table.ts');
    expect(found).toContain('no-sibling-import: src/testing/server.ts → src/cli/output/table.ts');
  });

  it('reports cli/ reaching client/ or transport/ past the host', () => {
    expect(found).toContain('cli-through-host: src/cli/era.ts → src/client/index.ts');
  });

  it('lets a lazily loaded module import a lazy-only one statically, and keeps every import of it lazy', () => {
    expect(found).toContain('lazy-only: src/auth/eager.ts → src/auth/sign-in-flow.ts');
    expect(found.join('\n')).not.toContain('src/transport/http/index.ts');
    expect(found.join('\n')).not.toContain('src/auth/sign-in.ts');
    expect(found.join('\n')).not.toContain('src/auth/typed.ts');
  });

  it("reports a cycle of config/'s modules, and config/types.ts importing its own folder", () => {
    expect(found).toContain('no-config-cycle: src/config/entry/normalize.ts → src/config/entry/readers.ts');
    expect(found).toContain('config-types-alone: src/config/types.ts → src/config/load/load.ts');
  });

  it('reports a folder no layer declares', () => {
    expect(found).toContain('undeclared-folder: src/extras/a.ts → src/errors/index.ts');
  });

  it('reports nothing else (the clean imports pass)', () => {
    expect(found).toEqual([
      'cli-through-host: src/cli/era.ts → src/client/index.ts',
      'config-types-alone: src/config/types.ts → src/config/load/load.ts',
      'lazy-only: src/auth/eager.ts → src/auth/sign-in-flow.ts',
      'no-config-cycle: src/config/entry/normalize.ts → src/config/entry/readers.ts',
      'no-folder-cycle: src/permissions → src/registry',
      'no-folder-cycle: src/registry → src/permissions',
      'no-import-of-cli: src/testing/server.ts → src/cli/output/table.ts',
      'no-sibling-import: src/testing/server.ts → src/cli/output/table.ts',
      'no-upward-import: src/home/upward.ts → src/agent/index.ts',
      'no-upward-import: src/registry/index.ts → src/permissions/index.ts',
      'not-through-index: src/testing/server.ts → src/cli/output/table.ts',
      'not-through-index: src/tools/index.ts → src/client/server-connection.ts',
      'not-through-index: src/tools/index.ts → src/config/load/load.ts',
      'undeclared-folder: src/extras/a.ts → src/errors/index.ts',
    ]);
  });
});

describe('the layer rule on the real tree', () => {
  let baseline: IViolation[];
  let withoutBaseline: ICruiseResult;

  beforeAll(async () => {
    baseline = JSON.parse(await readFile(baselineFile, 'utf8'));
    withoutBaseline = await cruiseTree(repoRoot);
  });

  it('holds every rule with no baseline', () => {
    expect(described(withoutBaseline.summary.violations)).toEqual([]);
  });

  it('tolerates nothing: the baseline is empty (npm run layers:baseline)', () => {
    expect(described(baseline)).toEqual([]);
  });
});
