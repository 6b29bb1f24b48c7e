/**
 * No token, code or secret in any output: a device sign-in, calls, a refresh and a machine's
 * client-credentials calls, with --verbose and tracing on, then `mcpx auth status --json`,
 * `mcpx doctor`, `mcpx list` and a call of each through `mcpx serve --http`: every stdout and
 * stderr, the gateway's `/metrics`, the audit log and every other
 * file of the home but the token files, and every span exported are searched for every device
 * code, access token and refresh token the test authorization server issued and the client secret.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenStore } from '../../src/auth/token-store.js';
import { type OAuthTestServer, startOAuthTestServer } from '../../src/testing/oauth-test-server.js';
import { type CliRun, runCli, tempDir } from '../helpers/cli.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const SECRET = `robot-${randomBytes(12).toString('base64url')}`;

let dir: { path: string; remove: () => Promise<void> };
let as: OAuthTestServer;
let receiver: OtlpReceiver;
let config: string;
const home = () => join(dir.path, 'home');
const printed: string[] = [];

beforeAll(async () => {
  dir = await tempDir('mcpx-no-secrets-');
  as = await startOAuthTestServer({ device: {}, machineClient: { id: 'robot', secret: SECRET } });
  receiver = await startOtlpReceiver();
  config = join(dir.path, 'mcp.json');
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        secure: { url: as.url },
        robot: {
          url: as.url,
          oauth: { grant_type: 'client_credentials', client_id: 'robot', client_secret: `\${ROBOT_SECRET}` },
        },
      },
    }),
  );
});
afterAll(async () => {
  await receiver?.close();
  await as?.close();
  await dir?.remove();
});

async function mcpx(args: string[], onStderr?: (stderr: string, pid: number) => void): Promise<CliRun> {
  const run = await runCli(['--config', config, ...args], {
    cwd: dir.path,
    home: home(),
    env: {
      ROBOT_SECRET: SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    },
    timeoutMs: 60_000,
    ...(onStderr ? { onOutput: ({ stderr }, pid) => onStderr(stderr, pid) } : {}),
  });
  printed.push(run.stdout, run.stderr);
  return run;
}

describe('no secret in any output', () => {
  it('device code, tokens, refresh and client secret: none in stdout, stderr, the home or the spans', {
    timeout: 120_000,
  }, async () => {
    let approved = false;
    const auth = await mcpx(['--verbose', 'auth', 'secure', '--device'], (stderr) => {
      const code = /enter the code:\s+(\S+)/.exec(stderr)?.[1];
      if (approved || !code) return;
      approved = true;
      void as.approveDevice(code);
    });
    expect(auth.code, auth.stderr).toBe(0);
    expect(await mcpx(['--verbose', 'call', 'secure.echo', 'message=one'])).toMatchObject({ code: 0 });
    // The access token lapses: the next call refreshes.
    as.expireAccessTokens();
    const store = new TokenStore(join(home(), '.mcpx'));
    expect(await mcpx(['--verbose', '--trace', 'call', 'secure.echo', 'message=two'])).toMatchObject({
      code: 0,
      stdout: 'two\n',
    });
    expect(as.refreshes().granted).toBe(1);
    expect(await mcpx(['--verbose', '--trace', 'call', 'robot.echo', 'message=beep'])).toMatchObject({
      code: 0,
      stdout: 'beep\n',
    });
    const status = await mcpx(['auth', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject([
      { server: 'secure', state: 'signed-in' },
      { server: 'robot', state: 'machine' },
    ]);
    // Through the gateway too, and its metrics: a call of each server, then `GET /metrics`.
    let served: Promise<string> | undefined;
    await mcpx(['--verbose', 'serve', '--http'], (stderr, pid) => {
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (served || !url) return;
      served = callThroughGateway(url).finally(() => process.kill(pid, 'SIGTERM'));
    });
    const metrics = await (served ?? Promise.reject(new Error('mcpx serve did not listen')));
    expect(metrics).toContain('tools/call');
    printed.push(metrics);
    await mcpx(['--verbose', 'doctor']);
    expect((await mcpx(['--verbose', 'list'])).code).toBe(0);
    await receiver.waitFor((spans) => spans.some((s) => s.name.includes('tools/call')), 10_000);

    const tokenFiles = new Set([store.fileFor('secure', as.url), store.fileFor('robot', as.url)]);
    const files: string[] = [];
    for (const entry of await readdir(join(home(), '.mcpx'), { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name);
      if (entry.isFile() && !tokenFiles.has(path)) files.push(await readFile(path, 'utf8').catch(() => ''));
    }
    const audit = await readFile(join(home(), '.mcpx', 'logs', 'audit.jsonl'), 'utf8');
    expect(audit).toContain('"tool":"echo"');
    const spans = JSON.stringify(receiver.spans);
    const secrets = [...as.issuedSecrets(), SECRET];
    // A device code, the signed-in pair, the refreshed pair, the machine's pair, and the client secret.
    expect(secrets.length).toBeGreaterThanOrEqual(8);
    for (const secret of secrets)
      for (const text of [...printed, ...files, spans]) expect(text).not.toContain(secret);
  });
});

/** A call of each server through the gateway at `url`; what its `/metrics` then says. */
async function callThroughGateway(url: string): Promise<string> {
  const client = new Client({ name: 'no-secrets', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    for (const name of ['secure__echo', 'robot__echo'])
      expect(await client.callTool({ name, arguments: { message: 'through' } })).toMatchObject({
        content: [{ type: 'text', text: 'through' }],
      });
  } finally {
    await client.close();
  }
  return (await fetch(url.replace(/\/mcp$/, '/metrics'))).text();
}
