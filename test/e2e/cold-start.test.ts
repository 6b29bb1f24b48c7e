/**
 * The bundled CLI loads only what a command needs: `--version` loads nothing
 * but its entry, and a stdio call never loads the HTTP stack, nor OpenTelemetry
 * (not even its API) while tracing is off.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, runCli, tempDir } from '../helpers/cli.js';

const recorder = fileURLToPath(new URL('../fixtures/record-loads.mjs', import.meta.url));
let dir: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  dir = await tempDir('mcpx-cold-');
});
afterAll(() => dir.remove());

/** Code that marks a layer: a class each layer's chunk defines (`var X = class` once bundled). */
const LAZY_LAYERS = {
  'HTTP transport': /\bGuardedHttp = class\b|\bclass GuardedHttp\b/,
  'agent tools': /\bfunction createAgentTools\b/,
  'chat agent': /\bfunction runAgentTurn\b/,
  permissions: /\bfunction createPermissionGuard\b/,
  // The OpenTelemetry metrics SDK: the gateway's and the daemon's, never a short command's.
  'metrics SDK': /\bMeterProvider(\$\d+)? = class\b|\bclass MeterProvider\b/,
  'OpenTelemetry SDK': /\bOTLPTraceExporter = class\b|\bclass OTLPTraceExporter\b/,
  // The OpenTelemetry API: with nothing registered with it every span is a no-op, so an untraced
  // call does not read it (tracing/presence.ts tells from the API's global object).
  'OpenTelemetry API': /\bProxyTracerProvider = class\b|\bclass ProxyTracerProvider\b/,
  // What only `mcpx config add|remove|…` and a trust question use: a call whose servers are all
  // trusted reads and compiles neither (the host imports config/loading.ts, not config/index.ts).
  'config editing': /\bfunction editConfigFile\b/,
  'trust review': /\bfunction describeForTrust\b/,
} as const;

async function loadedFiles(
  args: string[],
  name: string,
  env: Record<string, string> = {},
): Promise<{ files: string[]; stdout: string }> {
  const record = join(dir.path, `${name}.txt`);
  const run = await runCli(args, {
    cwd: dir.path,
    home: join(dir.path, 'home'),
    env: { MCPX_RECORD_LOADS: record, NODE_OPTIONS: `--import=${recorder}`, ...env },
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  // The entry is seen twice: by the loader hook, and in the require cache (CommonJS) at exit.
  const urls = [
    ...new Set((await readFile(record, 'utf8')).split('\n').filter((u) => u.startsWith('file:'))),
  ];
  return {
    files: urls.map((u) => fileURLToPath(u)).filter((f) => !f.endsWith('record-loads.mjs')),
    stdout: run.stdout,
  };
}

describe('what the CLI loads', () => {
  it('--version loads its entry file and nothing else of mcpx', async () => {
    const { files, stdout } = await loadedFiles(['--version'], 'version');
    expect(stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(files.map((f) => f.split(/[\\/]/).slice(-2).join('/'))).toEqual(['bin/mcpx.cjs']);
  });

  it('a stdio call loads no HTTP code, and untraced no OpenTelemetry', async () => {
    const { files, stdout } = await loadedFiles(['call', 'demo.echo', 'message=cold'], 'call');
    expect(stdout).toBe('cold\n');
    const sources = await Promise.all(files.map((f) => readFile(f, 'utf8')));
    for (const [layer, marker] of Object.entries(LAZY_LAYERS)) {
      const loaded = files.filter((_, i) => marker.test(sources[i] ?? ''));
      expect(loaded, `${layer} was loaded`).toEqual([]);
    }
  });

  it("a call takes the command's context from the chunk that holds the call command", async () => {
    // Each chunk file a call loads is resolved, read and compiled on its own (bench/README.md's
    // cold notes): the context every command opens is not worth a file of its own.
    const { files, stdout } = await loadedFiles(['call', 'demo.echo', 'message=context'], 'context');
    expect(stdout).toBe('context\n');
    const sources = await Promise.all(files.map((f) => readFile(f, 'utf8')));
    const holding = (marker: RegExp) => files.filter((_, i) => marker.test(sources[i] ?? ''));
    const call = holding(/\bfunction runCall\b/);
    expect(call).toHaveLength(1);
    expect(holding(/\bfunction commandDoor\b/)).toEqual(call);
  });

  it('every marker names code the bundle has (none can pass by matching nothing)', async () => {
    const chunks = join(dirname(cliPath), 'chunks');
    const sources = await Promise.all((await readdir(chunks)).map((f) => readFile(join(chunks, f), 'utf8')));
    for (const [layer, marker] of Object.entries(LAZY_LAYERS))
      expect(
        sources.some((s) => marker.test(s)),
        `${layer} is in no chunk`,
      ).toBe(true);
  });

  it('a traced call does load the OpenTelemetry SDK (the marker is right)', async () => {
    const { files, stdout } = await loadedFiles(
      ['call', 'demo.echo', 'message=traced'],
      'traced',
      // Nothing listens there: the export fails, quietly, and the command's answer is unchanged.
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
    );
    expect(stdout).toBe('traced\n');
    const sources = await Promise.all(files.map((f) => readFile(f, 'utf8')));
    expect(sources.some((s) => LAZY_LAYERS['OpenTelemetry SDK'].test(s))).toBe(true);
    expect(sources.some((s) => LAZY_LAYERS['OpenTelemetry API'].test(s))).toBe(true);
  });

  it('a remote call does load the HTTP code (the marker is right)', async () => {
    const { startHttpTestServer } = await import('../../src/testing/http-test-server.js');
    const remote = await startHttpTestServer();
    try {
      const { files } = await loadedFiles(['--url', remote.url, 'call', 'echo', 'message=warm'], 'remote');
      const sources = await Promise.all(files.map((f) => readFile(f, 'utf8')));
      expect(sources.some((s) => LAZY_LAYERS['HTTP transport'].test(s))).toBe(true);
    } finally {
      await remote.close();
    }
  });
});
