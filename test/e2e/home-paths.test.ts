/**
 * Paths under the home folder read `~/…` wherever mcpx shows one to a person (seed 000:
 * `Source: ~/.nexus3/mcp.json (global config)`): error reports, `mcpx list`'s origins, `config
 * path`, the trust review and notices. `--json` keeps them absolute, and a folder that merely
 * shares the home's name as a prefix (`/…/ada2` beside `/…/ada`) is not shortened.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
let home: string;
let globalFile: string;
let inside: string; // a repository under the home
let beside: string; // a repository under a folder that shares the home's name as a prefix

beforeAll(async () => {
  dir = await tempDir('mcpx-home-paths-');
  home = join(dir.path, 'ada');
  globalFile = join(home, '.mcpx', 'mcp.json');
  inside = join(home, 'repo');
  beside = join(dir.path, 'ada2', 'repo');
  for (const folder of [join(home, '.mcpx'), inside, beside]) await mkdir(folder, { recursive: true });
  await writeFile(
    globalFile,
    JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [testServerPath] } } }, null, 2),
  );
  const planted = JSON.stringify({
    mcpServers: { planted: { command: process.execPath, args: ['-e', ''] } },
  });
  await writeFile(join(inside, '.mcp.json'), planted);
  await writeFile(join(beside, '.mcp.json'), planted);
});
afterAll(() => dir.remove());

const mcpx = (args: string[], cwd = inside) => runCli(args, { cwd, home, timeoutMs: 30_000 });

describe('paths under the home read ~/', () => {
  it('mcpx list: the origin column and the notice of an untrusted entry; --json keeps them whole', async () => {
    const list = await mcpx(['list']);
    expect(list.stdout).toMatch(/^t\s+ready\s+.*\s~\/\.mcpx\/mcp\.json \(global\)$/m);
    expect(list.stdout).toMatch(/^planted\s+untrusted\s+.*\s~\/repo\/\.mcp\.json \(project\)$/m);
    expect(list.stderr).toContain("skipped server 'planted' from ~/repo/.mcp.json: not trusted yet");
    expect(`${list.stdout}${list.stderr}`).not.toContain(home);

    const json = await mcpx(['--json', 'list']);
    const rows = JSON.parse(json.stdout) as { name: string; file?: string }[];
    expect(rows.find((r) => r.name === 't')?.file).toBe(globalFile);
    expect(json.stderr).toContain(join(inside, '.mcp.json'));
  });

  it('a folder that only shares the prefix of the home is shown whole', async () => {
    const list = await mcpx(['list'], beside);
    expect(list.stdout).toContain(`${join(beside, '.mcp.json')} (project)`);
    expect(list.stderr).toContain(`skipped server 'planted' from ${join(beside, '.mcp.json')}:`);
  });

  it('mcpx config path and the trust review', async () => {
    const paths = await mcpx(['config', 'path']);
    expect(paths.stdout).toMatch(/^global\s+~\/\.mcpx\/mcp\.json\s+yes$/m);
    expect(paths.stdout).toMatch(/^project\s+~\/repo\/\.mcp\.json\s+yes$/m);
    expect(JSON.parse((await mcpx(['--json', 'config', 'path'])).stdout)).toContainEqual(
      expect.objectContaining({ layer: 'global', path: globalFile }),
    );
    const trust = await mcpx(['config', 'trust']);
    expect(trust.stderr).toContain("Project config ~/repo/.mcp.json:1 defines server 'planted'");
  });

  it('an error report names the file as ~/…, in one line and with --verbose; --json has it whole', async () => {
    const broken = join(home, 'broken.json');
    await writeFile(broken, '{\n  "mcpServers": {\n    "x": ,\n  }\n}\n');
    const line = await mcpx(['--config', broken, 'list']);
    expect(line.code).not.toBe(0);
    expect(line.stderr).toMatch(/^error: ~\/broken\.json:3:\d+: invalid JSON/m);
    expect(line.stderr).not.toContain(home);
    const verbose = await mcpx(['--verbose', '--config', broken, 'list']);
    expect(verbose.stderr).toMatch(/~\/broken\.json:3:\d+/);
    expect(verbose.stderr).not.toContain(home);
    const json = await mcpx(['--json', '--config', broken, 'list']);
    expect(JSON.parse(json.stderr).error.message).toContain(`${broken}:3:`);
  });
});
