/**
 * The built `mcpx console --no-open` as a real process over a config of its own, and Debian's
 * chromium (driven by playwright-core) to look at its page.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { cliPath, tempDir } from './cli.js';

/** Where `.ci/run` installs Debian's chromium (`apt-get install chromium`). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

export interface RunningConsolePage {
  /** The URL the command printed: `http://127.0.0.1:PORT/?token=…`. */
  readonly url: string;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly token: string;
  readonly port: number;
  /** The config file the console was given, and the home it runs with (for a `mcpx daemon` beside it). */
  readonly configFile: string;
  readonly home: string;
  /** The audit file the console's host writes (`$MCPX_HOME/logs/audit.jsonl`). */
  readonly auditFile: string;
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then the exit (SIGKILL after 10 s). */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** stop(), then remove the temp dir. */
  close(): Promise<void>;
}

/**
 * Start `mcpx --config <file> console --no-open` over `mcpServers` (and the config's other
 * top-level `settings`, such as `permission`) and wait for its URL.
 */
export async function startConsole(
  mcpServers: Record<string, unknown>,
  extraArgs: readonly string[] = [],
  settings: Record<string, unknown> = {},
): Promise<RunningConsolePage> {
  const dir = await tempDir('mcpx-console-');
  const home = join(dir.path, 'home');
  await mkdir(home, { recursive: true });
  const configFile = join(dir.path, 'mcp.json');
  await writeFile(configFile, JSON.stringify({ ...settings, mcpServers }, null, 2));
  const child = spawn(
    process.execPath,
    [cliPath, '--config', configFile, 'console', '--no-open', ...extraArgs],
    {
      cwd: dir.path,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, MCPX_HOME: join(home, '.mcpx') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mcpx console printed no URL:\n${stderr}`)), 30_000);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+(?:&app=\S+)?)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`mcpx console exited (${code}):\n${stderr}`));
    });
  });
  const parsed = new URL(url);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }
    return exited;
  };
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token') ?? '',
    port: Number(parsed.port),
    configFile,
    home,
    auditFile: join(home, '.mcpx', 'logs', 'audit.jsonl'),
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    stop,
    async close() {
      await stop();
      await dir.remove();
    },
  };
}

/**
 * Debian's chromium, headless. Missing, it is a failure that says how to install it, never a
 * skip. As root chromium refuses to start with its sandbox, so there (CI runs as root) it runs
 * with `--no-sandbox`; the page it loads is mcpx's own, on loopback.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `chromium is not installed at ${CHROMIUM_PATH}: apt-get install -y --no-install-recommends chromium (.ci/run does)`,
    );
  const asRoot = process.getuid?.() === 0;
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: asRoot ? ['--no-sandbox'] : [],
  });
}
