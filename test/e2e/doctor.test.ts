// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} placeholders are the config syntax under test
/**
 * `mcpx doctor` on a config where every kind of server is present at once:
 * healthy ones, a crashing one, a missing command, one that never answers,
 * and one whose `${VAR}` is unset. Run through the built binary, as a user would.
 */
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, testServerPath } from '../helpers/cli.js';

let dir: { path: string; remove: () => Promise<void> };
let file: string;
// A remote server that wants OAuth: doctor shows its auth state as required.
const secured = createServer((_req, res) => res.writeHead(401, { 'www-authenticate': 'Bearer' }).end());

beforeAll(async () => {
  dir = await tempDir('mcpx-doctor-');
  await new Promise<void>((resolve) => secured.listen(0, '127.0.0.1', resolve));
  const securedUrl = `http://127.0.0.1:${(secured.address() as AddressInfo).port}/mcp`;
  file = join(dir.path, 'mcp.json');
  const node = process.execPath;
  await writeFile(
    file,
    JSON.stringify(
      {
        mcpServers: {
          good: { command: node, args: [testServerPath] },
          paged: { command: node, args: [testServerPath], env: { MCP_TOOL_COUNT: '30', MCP_PAGE_SIZE: '7' } },
          crashy: { command: node, args: [testServerPath], env: { MCPX_TEST_FAULT: 'stderr-exit' } },
          missing: { command: 'mcpx-no-such-command', args: ['--stdio'] },
          hangs: {
            command: node,
            args: [testServerPath],
            env: { MCPX_TEST_FAULT: 'hang-before-initialize' },
          },
          needsKey: { command: node, args: [testServerPath], env: { TOKEN: '${MCPX_DOCTOR_UNSET_TOKEN}' } },
          secured: { url: securedUrl },
        },
      },
      null,
      2,
    ),
  );
});
afterAll(async () => {
  await dir.remove();
  await new Promise((resolve) => secured.close(resolve));
});

const doctor = (...flags: string[]) =>
  runCli(['--config', file, '--timeout', '2', ...flags, 'doctor'], {
    cwd: dir.path,
    home: join(dir.path, 'home'),
    timeoutMs: 30_000,
  });

describe('mcpx doctor on a mixed config', () => {
  it('prints a table of every server and, for each failure, the explanation and the fix', async () => {
    const run = await doctor();
    expect(run.code).not.toBe(0);
    const rows = new Map(
      run.stdout
        .split('\n')
        .filter((line) => /^(ok|FAIL)\s/.test(line))
        .map((line) => {
          const [status = '', server = '', ...rest] = line.trim().split(/\s+/);
          return [server, { status, rest: rest.join(' ') }] as const;
        }),
    );
    expect([...rows.keys()].sort()).toEqual([
      'crashy',
      'demo',
      'good',
      'hangs',
      'missing',
      'needsKey',
      'paged',
      'secured',
    ]);
    expect(rows.get('good')).toMatchObject({ status: 'ok' });
    expect(rows.get('good')?.rest).toMatch(/^\d+ ms (2026-07-28|2025-\d\d-\d\d) 10 - /);
    // MCP_TOOL_COUNT adds 30 generated tools to the 10, listed 7 per page.
    expect(rows.get('paged')?.rest).toMatch(/ 40 /);
    for (const broken of ['crashy', 'missing', 'hangs', 'needsKey', 'secured'])
      expect(rows.get(broken)?.status).toBe('FAIL');
    expect(rows.get('secured')?.rest).toMatch(/^- - - required /);
    expect(run.stdout).toContain('sign in with `mcpx auth secured`');

    // Each failure explained in full, with the fix.
    expect(run.stdout).toContain("error [SERVER_CRASHED]: server 'crashy' exited with code 1");
    expect(run.stdout).toContain('set EXAMPLE_API_KEY');
    expect(run.stdout).toContain(
      "error [COMMAND_NOT_FOUND]: cannot start server 'missing': command 'mcpx-no-such-command' not found",
    );
    expect(run.stdout).toMatch(/error \[CONNECT_TIMEOUT\]: .*'hangs'/);
    expect(run.stdout).toMatch(/error \[CONFIG_INTERPOLATION\]: .*MCPX_DOCTOR_UNSET_TOKEN/);
    expect(run.stdout).toContain(`config     ${file}:`);
    expect(run.stdout).toMatch(/\n3 healthy, 5 failing\n$/);
  });

  it('gives the same verdicts as JSON', async () => {
    const run = await doctor('--json');
    const checks = JSON.parse(run.stdout) as {
      server: string;
      healthy: boolean;
      tools?: number;
      error?: { code: string; fixes: string[] };
    }[];
    const byName = new Map(checks.map((c) => [c.server, c]));
    expect(byName.get('good')).toMatchObject({ healthy: true, tools: 10 });
    expect(byName.get('paged')).toMatchObject({ healthy: true, tools: 40 });
    expect(byName.get('crashy')?.error?.code).toBe('SERVER_CRASHED');
    expect(byName.get('missing')?.error?.code).toBe('COMMAND_NOT_FOUND');
    expect(byName.get('hangs')?.error?.code).toBe('CONNECT_TIMEOUT');
    expect(byName.get('needsKey')?.error?.code).toBe('CONFIG_INTERPOLATION');
    for (const check of checks.filter((c) => !c.healthy))
      expect(check.error?.fixes.length).toBeGreaterThan(0);
  });
});
