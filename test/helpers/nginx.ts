/**
 * A real nginx (Debian's; `.ci/run` installs it) for the deployment and fleet tests: run as the
 * current user from a private prefix, in front of the test's `mcpx serve` instances, with a
 * documented config's http block (docs/nginx.conf, docs/nginx-fleet.conf) between its
 * `# --- begin http block ---` and `# --- end http block ---` lines.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './ports.js';
import { descendantPids, isAlive } from './processes.js';

export interface NginxOptions {
  /** The private prefix (config, pid, logs, temp files), made if missing. */
  readonly prefix: string;
  /** What goes inside `http { … }` after the temp paths, for nginx listening on `port`. */
  readonly http: (port: number) => string;
  /** Per worker; default 256. Above 1,000 the open-file limit is raised with it. */
  readonly workerConnections?: number;
}

export interface RunningNginx {
  /** `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Its error log so far ('' when none). */
  errorLog(): Promise<string>;
  /** Stop it gracefully (SIGQUIT, SIGKILL after 10 s); resolves with the workers still alive (none, rightly). */
  stop(): Promise<number[]>;
}

/** The documented config's http block, between its begin and end marker lines. */
export function documentedHttpBlock(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/^[\s\S]*?# --- begin http block ---\n/, '')
    .replace(/# --- end http block ---[\s\S]*$/, '');
}

export function findNginx(): string {
  for (const candidate of ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx']) {
    try {
      execFileSync(candidate, ['-v'], { stdio: 'ignore' });
      return candidate;
    } catch {}
  }
  throw new Error('nginx is not installed: `apt-get install -y nginx` (.ci/run does)');
}

/** Start nginx and wait until its `/healthz` (proxied to an instance) answers 200. */
export async function startNginx(options: NginxOptions): Promise<RunningNginx> {
  const binary = findNginx();
  const { prefix } = options;
  await mkdir(join(prefix, 'logs'), { recursive: true });
  const port = await freePort();
  const errorLogFile = join(prefix, 'logs/error.log');
  await writeFile(join(prefix, 'nginx.conf'), mainConf(options, port));
  const nginx = spawn(binary, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', errorLogFile], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  nginx.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => nginx.once('exit', () => resolve()));
  const errorLog = () => readFile(errorLogFile, 'utf8').catch(() => '');
  const stop = async () => {
    if (nginx.exitCode === null && nginx.signalCode === null) {
      nginx.kill('SIGQUIT');
      const killer = setTimeout(() => nginx.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    return workers.filter(isAlive);
  };
  let workers: number[] = [];
  try {
    await waitForHealth(nginx, `http://127.0.0.1:${port}/healthz`, () => stderr, errorLog);
    // The workers are nginx's children, not ours: stop() says whether the master took them down.
    workers = descendantPids(nginx.pid as number);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}/mcp`, port, errorLog, stop };
}

function mainConf(options: NginxOptions, port: number): string {
  const { prefix } = options;
  const connections = options.workerConnections ?? 256;
  const paths = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((kind) => `  ${kind}_temp_path ${join(prefix, `${kind}_temp`)};`)
    .join('\n');
  // As root the master would hand its workers to 'nobody', who cannot write the private prefix.
  const user = process.getuid?.() === 0 ? `user ${userInfo().username};\n` : '';
  const files = connections > 1_000 ? `worker_rlimit_nofile ${connections * 2};\n` : '';
  return `${user}daemon off;
worker_processes 1;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'logs/error.log')} warn;
${files}events { worker_connections ${connections}; }
http {
${paths}
${options.http(port)}
}
`;
}

async function waitForHealth(
  nginx: ChildProcess,
  health: string,
  stderr: () => string,
  errorLog: () => Promise<string>,
): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(health)).status === 200) return;
    } catch {}
    if (nginx.exitCode !== null || Date.now() > until)
      throw new Error(`nginx did not come up:\n${stderr()}\n${await errorLog()}`);
    await delay(50);
  }
}
