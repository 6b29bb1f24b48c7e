/**
 * A real Prometheus (Debian's `prometheus` package; `.ci/run` installs it) scraping
 * `mcpx serve --http --token …`'s `/metrics` with the bearer token while calls run, and its
 * query API answering the call count; `/metrics` without the token is refused. Prometheus runs
 * from its binary with a private config and storage on 127.0.0.1, and is stopped with the test.
 * Without the binary the test is skipped and says why, except where MCPX_REQUIRE_PROMETHEUS=1
 * (CI), where a missing Prometheus is a failure.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testServerPath } from '../helpers/cli.js';
import { gatewayWorld } from '../helpers/gateway.js';

const TOKEN = 'prometheus-scrape-token-0123456789abcdef';
const CALLS = 7;

const binary = ['/usr/bin/prometheus', '/usr/local/bin/prometheus'].find((p) => existsSync(p));
const required = process.env.MCPX_REQUIRE_PROMETHEUS === '1';
if (!binary && !required)
  process.stdout.write(
    'note: skipping the Prometheus scrape test: no prometheus binary (apt-get install prometheus)\n',
  );

describe.skipIf(!binary && !required)('Prometheus scraping mcpx serve --http', () => {
  it('counts the calls a client made, read back through PromQL, and /metrics needs the token', async () => {
    expect(binary, 'the prometheus binary (Debian package "prometheus")').toBeDefined();
    const world = await gatewayWorld({
      permission: 'yolo',
      mcpServers: { test: { command: process.execPath, args: [testServerPath] } },
    });
    let prometheus: ChildProcess | undefined;
    let exited: Promise<void> | undefined;
    let log = '';
    try {
      const gateway = await world.serve(['--token', TOKEN]);
      const target = new URL(gateway.url);
      const bare = await fetch(new URL('/metrics', target));
      expect(bare.status).toBe(401);

      const dir = join(world.dir, 'prometheus');
      await mkdir(join(dir, 'data'), { recursive: true });
      await writeFile(join(dir, 'token'), TOKEN, { mode: 0o600 });
      await writeFile(
        join(dir, 'prometheus.yml'),
        [
          'global:',
          '  scrape_interval: 1s',
          '  scrape_timeout: 1s',
          'scrape_configs:',
          '  - job_name: mcpx',
          '    metrics_path: /metrics',
          '    authorization:',
          `      credentials_file: ${join(dir, 'token')}`,
          '    static_configs:',
          `      - targets: ['${target.host}']`,
          '',
        ].join('\n'),
      );
      const port = await freePort();
      const api = `http://127.0.0.1:${port}`;
      prometheus = spawn(
        binary as string,
        [
          `--config.file=${join(dir, 'prometheus.yml')}`,
          `--storage.tsdb.path=${join(dir, 'data')}`,
          `--web.listen-address=127.0.0.1:${port}`,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      const started = prometheus;
      exited = new Promise((resolve) => started.once('exit', () => resolve()));
      started.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        log = (log + chunk).slice(-20_000);
      });
      await until(
        async () => (await fetch(`${api}/-/ready`).catch(() => undefined))?.ok === true,
        () => log,
      );

      const client = await world.client(gateway.url, 'legacy', {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      for (let i = 0; i < CALLS; i++)
        await client.callTool({ name: 'test__echo', arguments: { message: `${i}` } });

      const query = async (promql: string): Promise<number | undefined> => {
        const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
        const body = (await response.json()) as { data?: { result?: { value: [number, string] }[] } };
        const value = body.data?.result?.[0]?.value[1];
        return value === undefined ? undefined : Number(value);
      };
      // The scrape reached mcpx with the token (up is 1), and the counts are the calls made.
      await until(
        async () => (await query('up{job="mcpx"}')) === 1,
        () => log,
      );
      await until(
        async () => (await query('sum(mcpx_tool_calls_total)')) === CALLS,
        () => log,
      );
      expect(
        await query(
          'sum(mcpx_tool_calls_total{mcpx_server="test",gen_ai_tool_name="echo",mcpx_outcome="ok"})',
        ),
      ).toBe(CALLS);
      expect(
        await query('sum(mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call"})'),
      ).toBe(CALLS);
      expect(
        await query(
          'sum(mcp_server_operation_duration_seconds_bucket{mcp_method_name="tools/call",le="+Inf"})',
        ),
      ).toBe(CALLS);
      expect(await query('sum(mcpx_upstream_connections{mcpx_state="ready"})')).toBe(1);
    } finally {
      if (prometheus && prometheus.exitCode === null && prometheus.signalCode === null) {
        prometheus.kill('SIGTERM');
        const killer = setTimeout(() => prometheus?.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(killer);
      }
      await world.close();
    }
  }, 90_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until(done: () => Promise<boolean>, log: () => string, ms = 45_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out; Prometheus said:\n${log().slice(-4000)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
