/**
 * The official MCP Inspector's CLI, a client mcpx did not write, listing and
 * calling through `mcpx serve` in many-server mode (our test server,
 * server-everything, memory, filesystem), over HTTP in both eras and over stdio
 * with the gateway as the Inspector's own child.
 *
 * The Inspector needs Node >= 22; it runs on the Node 22 that `conformance/`
 * installs (CI installs that folder before `npm test`), never on the Node that
 * runs these tests.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld, type RunningGateway } from '../helpers/gateway.js';
import { everythingPath, filesystemPath, memoryPath } from '../helpers/servers.js';

const conformanceBin = join(repoRoot, 'conformance/node_modules/.bin');
const node22 = join(conformanceBin, 'node');
const inspector = join(conformanceBin, 'inspector');
const node = process.execPath;
const installed = existsSync(node22) && existsSync(inspector);
// A fresh clone's `npm test` skips this file with the note from test/helpers/optional-installs.ts;
// CI installs the folder first, so there a missing install is a failure, never a skip.
if (!installed && process.env.CI) {
  throw new Error(
    `${conformanceBin} is missing: .ci/run must run \`npm install --prefix conformance\` before \`npm test\``,
  );
}

let world: GatewayWorld;
let gateway: RunningGateway;

beforeAll(async () => {
  if (!installed) return;
  world = await gatewayWorld({});
  await writeFile(
    world.configFile,
    JSON.stringify({
      permission: 'yolo',
      mcpServers: {
        test: { command: node, args: [testServerPath] },
        everything: { command: node, args: [everythingPath] },
        memory: {
          command: node,
          args: [memoryPath],
          env: { MEMORY_FILE_PATH: join(world.dir, 'memory.jsonl') },
        },
        filesystem: { command: node, args: [filesystemPath, world.dir] },
      },
    }),
  );
  gateway = await world.serve();
}, 60_000);

afterAll(async () => {
  await world?.close();
});

interface InspectorRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `inspector --cli --format json <args>` on Node 22, with a home of its own (it keeps a catalog there). */
function runInspector(args: readonly string[]): Promise<InspectorRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(node22, [inspector, '--cli', '--format', 'json', ...args], {
      cwd: world.dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: world.home,
        MCPX_HOME: join(world.home, '.mcpx'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The `result` of a successful `--format json` run. */
function resultOf(run: InspectorRun): Record<string, unknown> {
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { result: Record<string, unknown> }).result;
}

function toolNames(run: InspectorRun): string[] {
  return (resultOf(run).tools as { name: string }[]).map((t) => t.name);
}

describe.skipIf(!installed).each(['legacy', 'modern'] as const)(
  'the Inspector CLI over HTTP, %s era',
  (era) => {
    const http = (...args: string[]) => runInspector([gateway.url, '--protocol-era', era, ...args]);

    it("lists every server's tools under its own prefix", async () => {
      const names = toolNames(await http('--method', 'tools/list'));
      expect(new Set(names).size).toBe(names.length);
      for (const name of [
        'test__echo',
        'test__add',
        'everything__echo',
        'memory__create_entities',
        'memory__read_graph',
        'filesystem__list_allowed_directories',
      ]) {
        expect(names).toContain(name);
      }
      for (const name of names) expect(name).toMatch(/^(test|everything|memory|filesystem)__[a-zA-Z0-9_-]+$/);
    }, 60_000);

    it("calls each server's tools by their namespaced names", async () => {
      const echo = resultOf(
        await http('--method', 'tools/call', '--tool-name', 'test__echo', '--tool-arg', `message=hi ${era}`),
      );
      expect(firstText(echo)).toBe(`hi ${era}`);
      const sum = resultOf(
        await http('--method', 'tools/call', '--tool-name', 'test__add', '--tool-arg', 'a=2', 'b=40'),
      );
      expect(firstText(sum)).toContain('42');
      const everything = resultOf(
        await http(
          '--method',
          'tools/call',
          '--tool-name',
          'everything__echo',
          '--tool-arg',
          `message=${era}`,
        ),
      );
      expect(firstText(everything)).toBe(`Echo: ${era}`);
      const dirs = resultOf(
        await http('--method', 'tools/call', '--tool-name', 'filesystem__list_allowed_directories'),
      );
      expect(firstText(dirs)).toContain('mcpx-gateway-');
      // The memory server keeps what one Inspector run wrote for the next run to read.
      const entity = `entity-${era}`;
      const created = resultOf(
        await http(
          '--method',
          'tools/call',
          '--tool-name',
          'memory__create_entities',
          '--tool-args-json',
          JSON.stringify({ entities: [{ name: entity, entityType: 'test', observations: ['seen'] }] }),
        ),
      );
      expect(created.isError).toBeFalsy();
      const graph = resultOf(await http('--method', 'tools/call', '--tool-name', 'memory__read_graph'));
      expect(firstText(graph)).toContain(entity);
    }, 120_000);

    it("passes an upstream tool's error result through unchanged", async () => {
      const run = await http(
        '--method',
        'tools/call',
        '--tool-name',
        'test__fail',
        '--tool-arg',
        `message=broken ${era}`,
      );
      // The Inspector prints the result and exits 5 (`tool_is_error`) for a result with isError.
      expect(run.code).toBe(5);
      expect(run.stderr).toContain('tool_is_error');
      const failed = (JSON.parse(run.stdout) as { result: Record<string, unknown> }).result;
      expect(failed.isError).toBe(true);
      expect(firstText(failed)).toBe(`broken ${era}`);
    }, 60_000);
  },
);

describe.skipIf(!installed)('the Inspector CLI over stdio, with mcpx serve as its child', () => {
  const stdio = (inspectorArgs: string[], serveArgs: string[] = []) =>
    runInspector([
      ...inspectorArgs,
      '--',
      node,
      cliPath,
      '--config',
      world.configFile,
      'serve',
      ...serveArgs,
    ]);

  it('lists and calls namespaced tools of several servers', async () => {
    const names = toolNames(await stdio(['--method', 'tools/list']));
    expect(names).toContain('test__echo');
    expect(names).toContain('everything__echo');
    expect(names).toContain('memory__read_graph');
    expect(names).toContain('filesystem__list_allowed_directories');
    const echo = resultOf(
      await stdio([
        '--method',
        'tools/call',
        '--tool-name',
        'everything__echo',
        '--tool-arg',
        'message=over stdio',
      ]),
    );
    expect(firstText(echo)).toBe('Echo: over stdio');
  }, 120_000);

  it('sees one server unchanged through --server, in the modern era too', async () => {
    const names = toolNames(
      await stdio(['--method', 'tools/list', '--protocol-era', 'modern'], ['--server', 'test']),
    );
    expect(names).toContain('echo');
    expect(names.some((n) => n.includes('__'))).toBe(false);
    const echo = resultOf(
      await stdio(
        [
          '--method',
          'tools/call',
          '--protocol-era',
          'modern',
          '--tool-name',
          'echo',
          '--tool-arg',
          'message=plain',
        ],
        ['--server', 'test'],
      ),
    );
    expect(firstText(echo)).toBe('plain');
  }, 120_000);
});
