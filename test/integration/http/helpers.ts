import { connectServer } from '../../../src/client/server-connection.js';
import type { ServerConnection } from '../../../src/client/types.js';
import { SERVER_DEFAULTS } from '../../../src/config/entry/server-defaults.js';
import type { ServerConfig } from '../../../src/config/types.js';
import { McpxError } from '../../../src/errors/index.js';
import {
  type HttpTestServer,
  type HttpTestServerOptions,
  startHttpTestServer,
} from '../../../src/testing/http-test-server.js';
import {
  createHttpTransport,
  type HttpTransportHooks,
  type RetryInfo,
} from '../../../src/transport/http/index.js';

/** A ServerConfig for a remote server, as the config loader would produce it. */
export function remoteServer(name: string, url: string, extra: Partial<ServerConfig> = {}): ServerConfig {
  return {
    name,
    transport: 'http',
    ...SERVER_DEFAULTS,
    url,
    origin: { layer: 'explicit', file: '/test/mcp.json', line: 1 },
    fingerprint: `test-${name}`,
    httpRetryBackoffMs: 10,
    ...extra,
  };
}

/** Everything a test opens, closed after it. */
export class Resources {
  readonly #closers: (() => Promise<unknown>)[] = [];

  async server(options: HttpTestServerOptions = {}): Promise<HttpTestServer> {
    const server = await startHttpTestServer(options);
    this.#closers.push(() => server.close());
    return server;
  }

  async connect(
    server: ServerConfig,
    hooks: HttpTransportHooks = {},
    options: { connectTimeoutMs?: number; requestTimeoutMs?: number } = {},
  ): Promise<ServerConnection> {
    const connection = await connectServer(server, {
      createTransport: () => createHttpTransport(server, hooks),
      ...options,
    });
    this.#closers.push(() => connection.close());
    return connection;
  }

  add(closer: () => Promise<unknown>): void {
    this.#closers.push(closer);
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.#closers.splice(0).map((close) => close().catch(() => {})));
  }
}

/** Collects onRetry reports. */
export function retries(): { list: RetryInfo[]; onRetry: (info: RetryInfo) => void } {
  const list: RetryInfo[] = [];
  return { list, onRetry: (info) => list.push(info) };
}

export async function failure(promise: Promise<unknown>): Promise<McpxError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpxError) return error;
    throw new Error(`expected an McpxError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a failure');
}

export function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return content.map((c) => c.text ?? '').join('');
}
