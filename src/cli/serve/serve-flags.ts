import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { GatewayHttpListen, GatewayOptions } from '../../gateway/index.js';
import type { HostPolicy } from '../../host/index.js';
import { forTerminal } from '../../text/index.js';
import { usageError } from '../context/global-options.js';
import { readStateKey } from './state-key.js';

export interface ServeOptions {
  readonly http?: boolean;
  readonly host?: string;
  readonly port?: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly stateKeyFile?: string;
  /** With --http: the fleet's shared store (`redis://…`), connected by the command before it serves. */
  readonly state?: string;
  readonly allowedOrigin?: readonly string[];
  readonly allowedHost?: readonly string[];
  readonly server?: string;
  readonly servers?: string;
  readonly excludeTools?: readonly string[];
  readonly permission?: string;
  readonly allow?: string;
  readonly pageSize?: string;
  readonly accessLog?: string;
  readonly logArguments?: boolean;
  readonly instanceId?: string;
  readonly ssePoll?: string;
  /** With --http: also serve the legacy HTTP+SSE transport on /sse and /messages. */
  readonly legacySse?: boolean;
  /** Seconds SIGTERM waits for the calls in flight before the gateway stops anyway. */
  readonly drainTimeout?: string;
  /** With --http: seconds a 2025-11-25 session may sit unused before it is ended. */
  readonly sessionIdle?: string;
  /** Milliseconds a list request waits for servers still starting before it answers without them. */
  readonly listWait?: string;
  /** The config's profile to serve (`--profile NAME`). */
  readonly profile?: string;
  /** `--skills-only`: only the servers' skills, as the gateway's skill-loading tools. */
  readonly skillsOnly?: boolean;
}

/** What `mcpx serve`'s flags ask of the gateway, checked. */
export type ServeSettings = Pick<
  GatewayOptions,
  'http' | 'pageSize' | 'listWaitMs' | 'stateKey' | 'transparent' | 'servers' | 'skillsOnly' | 'drainMs'
>;

// Safe in a header, a URL and an nginx regex, and short enough to leave the session id readable.
const INSTANCE_ID = /^[A-Za-z0-9_-]{1,32}$/;
// A list request waits this long for servers still starting: client apps give a request a few
// seconds (Claude Code's `claude mcp list` fails a tools/list it waited on for 5 s), and nine
// `npx` servers take longer than that to start.
const DEFAULT_LIST_WAIT_MS = 2_000;
// SIGTERM's grace for the calls in flight: well inside an orchestrator's own before its SIGKILL
// (Kubernetes' terminationGracePeriodSeconds is 30 s by default), so the gateway stops its upstreams itself.
const DEFAULT_DRAIN_SECONDS = 10;

/** The flags that go together (or not), before anything is read or started; the bearer token, if any. */
export function checkServeFlags(options: ServeOptions): string | undefined {
  const bind = options.host ?? '127.0.0.1';
  const token = readToken(options);
  if (options.http && !isLoopback(bind) && token === undefined)
    throw usageError(
      `--host ${bind} would let other machines reach every configured server with no credential`,
      'give --token <secret> or --token-file <file> (clients send "Authorization: Bearer <secret>"), or bind 127.0.0.1',
    );
  if (
    !options.http &&
    (options.host ||
      options.port ||
      token !== undefined ||
      options.instanceId !== undefined ||
      options.stateKeyFile !== undefined ||
      options.state !== undefined)
  )
    throw usageError(
      '--host, --port, --token, --token-file, --state-key-file, --state and --instance-id go with --http',
    );
  if (options.state !== undefined && options.stateKeyFile === undefined)
    throw usageError(
      '--state shares consent answers, sessions and streams through Redis: it needs --state-key-file, the same key file on every instance',
      "make one: (umask 077; head -c 32 /dev/urandom > state.key); it signs what the instances store, so that whoever can write to the store cannot grant a client's consent",
    );
  if (!options.http && options.legacySse)
    throw usageError(
      '--legacy-sse goes with --http: it serves the HTTP+SSE transport beside Streamable HTTP',
      'mcpx serve --http --legacy-sse',
    );
  if (!options.http && options.ssePoll !== undefined)
    throw usageError('--sse-poll goes with --http: a stdio client has no stream to resume');
  if (!options.http && options.sessionIdle !== undefined)
    throw usageError(
      '--session-idle goes with --http: a stdio client is one session, for as long as it runs',
    );
  return token;
}

/** The flags' values, each checked; the state key file is read here (one others can read is refused). */
export function readServeSettings(options: ServeOptions, token: string | undefined): ServeSettings {
  const stateKey =
    options.stateKeyFile === undefined ? undefined : readStateKey(options.stateKeyFile, process.getuid?.());
  if (options.instanceId !== undefined && !INSTANCE_ID.test(options.instanceId))
    throw usageError(
      `--instance-id takes 1 to 32 letters, digits, '_' or '-', got '${forTerminal(options.instanceId)}'`,
      'e.g. --instance-id a (session ids become a.<uuid>, which a load balancer can route on)',
    );
  const port = options.port === undefined ? 0 : Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw usageError(`--port takes a port number, got '${options.port}'`);
  const ssePollMs = positiveWhole('--sse-poll', options.ssePoll, 'a positive number of milliseconds', '1000');
  const sessionIdle = positiveWhole(
    '--session-idle',
    options.sessionIdle,
    'a positive number of seconds',
    '600',
  );
  const pageSize = positiveWhole('--page-size', options.pageSize, 'a positive whole number');
  const listWaitMs =
    options.listWait === '0'
      ? 0
      : (positiveWhole('--list-wait', options.listWait, 'a number of milliseconds', '2000') ??
        DEFAULT_LIST_WAIT_MS);
  const drainSeconds =
    options.drainTimeout === '0'
      ? 0
      : (positiveWhole('--drain-timeout', options.drainTimeout, 'a number of seconds', '10') ??
        DEFAULT_DRAIN_SECONDS);
  if (options.server && options.servers) throw usageError('--server and --servers: give only one of them');
  if (options.server && options.skillsOnly)
    throw usageError(
      '--server re-serves one server unchanged; --skills-only serves only skills',
      'give one of them (--servers NAME --skills-only serves the skills of NAME)',
    );
  const bind = options.host ?? '127.0.0.1';
  const http: GatewayHttpListen = {
    host: bind,
    port,
    ...(token !== undefined ? { token } : {}),
    ...(options.instanceId !== undefined ? { instanceId: options.instanceId } : {}),
    ...(ssePollMs !== undefined ? { ssePollMs } : {}),
    ...(sessionIdle !== undefined ? { sessionIdleMs: sessionIdle * 1000 } : {}),
    ...(options.legacySse ? { legacySse: {} } : {}),
    allowedOrigins: options.allowedOrigin ?? [],
    allowedHosts: [
      ...(options.allowedHost ?? []),
      ...(isLoopback(bind) || bind === '0.0.0.0' || bind === '::' ? [] : [bind]),
    ],
  };
  return {
    ...(options.http ? { http } : {}),
    ...(pageSize !== undefined ? { pageSize } : {}),
    listWaitMs,
    drainMs: drainSeconds * 1000,
    ...(stateKey ? { stateKey } : {}),
    ...(options.server ? { transparent: options.server } : {}),
    ...(options.servers ? { servers: splitList(options.servers) } : {}),
    ...(options.skillsOnly ? { skillsOnly: true } : {}),
  };
}

/** `--allow a,b` and `--exclude-tools`, for the host's guard. */
export function servePolicy(options: ServeOptions): HostPolicy {
  return {
    ...(options.allow ? { allowServers: splitList(options.allow) } : {}),
    ...(options.excludeTools?.length ? { excludeTools: options.excludeTools } : {}),
  };
}

/** An option's value as a whole number above 0, or undefined when not given; otherwise a usage error. */
function positiveWhole(
  option: string,
  value: string | undefined,
  wanted: string,
  example?: string,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (Number.isInteger(n) && n > 0) return n;
  throw usageError(
    `${option} takes ${wanted}, got '${forTerminal(value)}'`,
    example && `e.g. ${option} ${example}`,
  );
}

function readToken(options: ServeOptions): string | undefined {
  if (options.token !== undefined && options.tokenFile !== undefined)
    throw usageError('--token and --token-file: give only one of them');
  const token =
    options.tokenFile !== undefined ? readFileSync(options.tokenFile, 'utf8').trim() : options.token;
  if (token !== undefined && token.length < 16)
    throw usageError(
      'the bearer token is too short to be a secret: use at least 16 characters',
      'e.g. --token "$(openssl rand -hex 32)"',
    );
  return token;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
