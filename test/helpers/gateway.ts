/**
 * The built `mcpx serve` as a real process, and SDK clients for it in either era.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { cliPath, gatewayPathEnv, tempDir, testServerPath } from './cli.js';

export interface RunningGateway {
  /** `http://127.0.0.1:PORT/mcp` (HTTP mode). */
  readonly url: string;
  readonly child: ChildProcess;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface GatewayWorld {
  readonly dir: string;
  readonly home: string;
  readonly configFile: string;
  /** Start `mcpx --config <file> serve --http <args>` and wait for its URL. */
  serve(args?: readonly string[], env?: Record<string, string>): Promise<RunningGateway>;
  /** Start `mcpx serve` on stdio (the caller talks on its stdin/stdout). */
  spawnStdio(args?: readonly string[]): ChildProcess;
  /** An SDK client connected to the gateway over HTTP, in one era. */
  client(url: string, era: 'legacy' | 'modern', options?: ClientExtras): Promise<Client>;
  /** Stop every gateway and client started so far (each test's own, in afterEach). */
  stopAll(): Promise<void>;
  /** stopAll(), then remove the temp dir. */
  close(): Promise<void>;
}

export interface ClientExtras {
  readonly headers?: Record<string, string>;
  readonly capabilities?: ConstructorParameters<typeof Client>[1] extends infer O
    ? O extends { capabilities?: infer C }
      ? C
      : never
    : never;
}

/**
 * A world whose config (`permission: yolo`) runs the test server as `local`, which logs each
 * cancellation it receives, and `others` besides. `cancellations()` counts those logged so far.
 */
export async function cancelLoggingWorld(
  others: Record<string, unknown> = {},
): Promise<{ world: GatewayWorld; cancellations: () => Promise<number> }> {
  const world = await gatewayWorld({});
  const cancelLog = join(world.dir, 'cancel.log');
  await writeFile(
    world.configFile,
    JSON.stringify({
      permission: 'yolo',
      mcpServers: {
        local: {
          command: process.execPath,
          args: [testServerPath],
          env: { MCPX_TEST_CANCEL_LOG: cancelLog },
        },
        ...others,
      },
    }),
  );
  const cancellations = async () => {
    const text = await readFile(cancelLog, 'utf8').catch(() => '');
    return text.split('\n').filter((l) => l.includes('cancelled')).length;
  };
  return { world, cancellations };
}

/** A temp dir with a config file holding `mcpServers`, and gateways on it. */
export async function gatewayWorld(config: Record<string, unknown>): Promise<GatewayWorld> {
  const dir = await tempDir('mcpx-gateway-');
  const home = join(dir.path, 'home');
  await mkdir(home, { recursive: true });
  const configFile = join(dir.path, 'mcp.json');
  await writeFile(configFile, JSON.stringify(config, null, 2));
  const children: ChildProcess[] = [];
  const clients: Client[] = [];
  const env = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    MCPX_HOME: join(home, '.mcpx'),
    ...gatewayPathEnv(),
    ...extra,
  });
  const world: GatewayWorld = {
    dir: dir.path,
    home,
    configFile,
    async serve(args = [], extraEnv = {}) {
      const child = spawn(process.execPath, [cliPath, '--config', configFile, 'serve', '--http', ...args], {
        cwd: dir.path,
        env: env(extraEnv),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let stderr = '';
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('exit', (code, signal) => resolve({ code, signal })),
      );
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`mcpx serve did not listen:\n${stderr}`)), 30_000);
        child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk;
          const match = /listening on (http:\/\/\S+)/.exec(stderr);
          if (match) {
            clearTimeout(timer);
            resolve(match[1] as string);
          }
        });
        void exited.then(({ code }) => {
          clearTimeout(timer);
          reject(new Error(`mcpx serve exited (${code}):\n${stderr}`));
        });
      });
      return { url, child, stderr: () => stderr, exited };
    },
    spawnStdio(args = []) {
      const child = spawn(process.execPath, [cliPath, '--config', configFile, 'serve', ...args], {
        cwd: dir.path,
        env: env(),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      children.push(child);
      return child;
    },
    async client(url, era, options = {}) {
      const client = new Client(
        { name: 'gateway-test', version: '0.0.0' },
        {
          versionNegotiation: era === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } },
          ...(options.capabilities ? { capabilities: options.capabilities } : {}),
        },
      );
      clients.push(client);
      await client.connect(
        new StreamableHTTPClientTransport(
          new URL(url),
          options.headers ? { requestInit: { headers: options.headers } } : {},
        ),
      );
      return client;
    },
    async close() {
      await world.stopAll();
      await dir.remove();
    },
    async stopAll() {
      await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
      await Promise.all(
        children.splice(0).map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
            }),
        ),
      );
    },
  };
  return world;
}

/** The text of a tool result's first block. */
export function firstText(result: unknown): string {
  const [block] = ((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[];
  return block?.text ?? '';
}
