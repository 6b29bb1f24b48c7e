/**
 * The SDK reports some things with console.warn, quoting the server. A 2026-07-28 HTTP server
 * listing a tool whose name and x-mcp-header carry escape sequences makes it say so; the
 * library must not print that, but hand it to the host as a diagnostic.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signIn } from '../../../src/auth/sign-in.js';
import { TokenStore } from '../../../src/auth/token-store.js';
import { connectServer } from '../../../src/client/server-connection.js';
import { adhocHttpServer } from '../../../src/config/index.js';
import type { ServerConfig } from '../../../src/config/types.js';
import { HOSTILE_TOOL } from '../../../src/testing/catalog.js';
import { startOAuthTestServer } from '../../../src/testing/oauth-test-server.js';
import { createHttpTransport } from '../../../src/transport/http/index.js';
import type { SdkDiagnostic } from '../../../src/transport/sdk-diagnostics.js';
import { tempDir } from '../../helpers/cli.js';
import { Resources, remoteServer, textOf } from '../http/helpers.js';

const res = new Resources();
afterEach(() => {
  vi.restoreAllMocks();
  return res.closeAll();
});

describe('SDK console output', () => {
  it('is handed to onSdkDiagnostic, never printed, while a host callback still prints', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const server = await res.server({ era: 'modern', hostileTool: true });
    const config = remoteServer('hostile', server.url);
    const diagnostics: SdkDiagnostic[] = [];
    const connection = await connectServer(config, {
      createTransport: () => createHttpTransport(config),
      onSdkDiagnostic: (d) => diagnostics.push(d),
    });
    res.add(() => connection.close());
    expect(connection.era).toBe('modern');

    const tools = await connection.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    expect(tools.map((t) => t.name)).not.toContain(HOSTILE_TOOL.name);
    const excluded = diagnostics.find((d) => d.message.includes('excluding tool'));
    expect(excluded).toMatchObject({ server: 'hostile', level: 'warn' });
    // Raw, as the SDK wrote it: sanitizing is the host's job when it shows it.
    expect(excluded?.message).toContain(HOSTILE_TOOL.name);
    expect(warn).not.toHaveBeenCalled();

    // The host's own console output from a callback mcpx runs is the host's.
    const result = await connection.callTool(
      'slow_operation',
      { steps: 1, delay_ms: 1 },
      { onProgress: () => console.log('host progress') },
    );
    expect(textOf(result)).toContain('completed 1 steps');
    expect(log).toHaveBeenCalledWith('host progress');
  });

  it('is dropped without a handler, and console outside mcpx still prints', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const server = await res.server({ era: 'modern', hostileTool: true });
    const connection = await res.connect(remoteServer('hostile-quiet', server.url));
    const tools = await connection.listTools();
    expect(tools.map((t) => t.name)).not.toContain(HOSTILE_TOOL.name);
    expect(warn).not.toHaveBeenCalled();
    console.warn('outside any connection');
    expect(warn).toHaveBeenCalledWith('outside any connection');
  });

  it('during a sign-in (the SDK warns before retrying a refused code) goes to the handler too', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const as = await startOAuthTestServer();
    res.add(() => as.close());
    const home = await tempDir('mcpx-diag-oauth-');
    res.add(home.remove);
    const server = { ...adhocHttpServer(as.url), name: 'secure' } as ServerConfig & { url: string };
    // A browser that comes back with a code the authorization server never issued.
    const bogusCode = async (url: URL) => {
      const response = await fetch(url, { redirect: 'manual' });
      const back = new URL(response.headers.get('location') ?? '', url);
      back.searchParams.set('code', 'never-issued');
      await fetch(back);
    };
    const diagnostics: SdkDiagnostic[] = [];
    await expect(
      signIn(server, {
        store: new TokenStore(home.path),
        present: bogusCode,
        timeoutMs: 20_000,
        onSdkDiagnostic: (d) => diagnostics.push(d),
      }),
    ).rejects.toMatchObject({ code: 'AUTH_REQUIRED' });
    expect(diagnostics.map((d) => d.message)).toContainEqual(expect.stringContaining('invalid_grant'));
    expect(diagnostics.every((d) => d.server === 'secure')).toBe(true);
    expect(warn).not.toHaveBeenCalled();
  });
});
