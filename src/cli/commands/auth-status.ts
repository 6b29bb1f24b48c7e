import { expiresAt, machineCredentials, type StoredCredentials, TokenStore } from '../../auth/index.js';
import type { ServerConfig } from '../../config/index.js';
import { displayPath } from '../../errors/index.js';
import { say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { renderTable } from '../output/table.js';
import { remoteServer } from './auth.js';

/** One remote server's sign-in as `mcpx auth status` tells it: never a token. */
interface SignInStatus {
  readonly server: string;
  /** `signed-in`, `expired` (the access token lapsed: renewed at the next request if it can be), `signed-out`, `ended` (the authorization server refused to renew it), or `machine` (client credentials). */
  readonly state: 'signed-in' | 'expired' | 'signed-out' | 'ended' | 'machine';
  readonly grantType?: 'authorization_code' | 'client_credentials' | 'jwt-bearer';
  /** When the access token expires (ISO 8601), if the authorization server said. */
  readonly expiresAt?: string;
  /** A refresh token is kept: the sign-in renews itself. */
  readonly renewable?: boolean;
  readonly scopes?: readonly string[];
  readonly issuer?: string;
  /** Why the sign-in ended, and when (ISO 8601). */
  readonly ended?: { readonly at: string; readonly reason: string };
  /** The token file (machine credentials: their tokens live in memory only). */
  readonly file?: string;
}

/**
 * `mcpx auth status [server]`: each remote server's sign-in — signed in or
 * not, until when, with which scopes and grant, where it is kept, and why it
 * ended if the authorization server refused to renew it. Tokens are never shown.
 */
export async function runAuthStatus(session: CliContext, name: string | undefined): Promise<number> {
  const { io, options, host } = session;
  const servers = name
    ? [await remoteServer(session, name)]
    : (await host.config()).servers.filter((s): s is ServerConfig & { url: string } => s.url !== undefined);
  const store = new TokenStore(host.home);
  const statuses = await Promise.all(servers.map((server) => statusOf(server, store)));
  if (options.json) {
    io.stdout.write(toJson(statuses));
    return ExitCode.Ok;
  }
  if (statuses.length === 0) {
    io.stdout.write(say`No remote servers in the config: only remote servers sign in.\n`);
    return ExitCode.Ok;
  }
  const now = Date.now();
  const rows = statuses.map((s) => [
    s.server,
    describeState(s),
    s.expiresAt ? describeExpiry(Date.parse(s.expiresAt), now, s.renewable === true) : '-',
    s.scopes?.length ? s.scopes.join(' ') : '-',
    s.grantType?.replace('_', ' ') ?? '-',
    s.file ? displayPath(s.file, io.homedir) : 'memory only',
  ]);
  io.stdout.write(say`${renderTable(['SERVER', 'SIGN-IN', 'EXPIRES', 'SCOPES', 'GRANT', 'STORED'], rows)}\n`);
  for (const s of statuses) {
    if (s.ended) io.stdout.write(say`\n'${s.server}': ${s.ended.reason} (${s.ended.at}).\n`);
    if (s.state === 'ended' || s.state === 'signed-out')
      io.stdout.write(say`Sign in to '${s.server}' with \`mcpx auth ${s.server}\`.\n`);
  }
  return ExitCode.Ok;
}

async function statusOf(server: ServerConfig & { url: string }, store: TokenStore): Promise<SignInStatus> {
  let machine: 'client_credentials' | 'jwt-bearer' | undefined;
  try {
    const credentials = machineCredentials(server);
    if (credentials) machine = credentials.grant ? 'jwt-bearer' : 'client_credentials';
  } catch {
    // Set up for a machine grant, but incomplete: a call says what is missing.
    machine = String(server.oauth?.grant_type ?? '').endsWith('jwt-bearer')
      ? 'jwt-bearer'
      : 'client_credentials';
  }
  if (machine) return { server: server.name, state: 'machine', grantType: machine };
  const file = store.fileFor(server.name, server.url);
  const stored = await store.load(server.name, server.url);
  const tokens = stored?.tokens;
  if (!tokens?.access_token) {
    return {
      server: server.name,
      state: stored?.ended ? 'ended' : 'signed-out',
      ...(stored?.ended
        ? { ended: { at: new Date(stored.ended.at).toISOString(), reason: stored.ended.reason }, file }
        : {}),
    };
  }
  const expiry = expiresAt(tokens);
  const issuer = tokens.issuer ?? issuerOf(stored);
  return {
    server: server.name,
    state: expiry !== undefined && expiry <= Date.now() ? 'expired' : 'signed-in',
    grantType: 'authorization_code',
    ...(expiry === undefined ? {} : { expiresAt: new Date(expiry).toISOString() }),
    renewable: tokens.refresh_token !== undefined,
    ...(tokens.scope ? { scopes: tokens.scope.split(' ').filter(Boolean) } : {}),
    ...(issuer ? { issuer } : {}),
    file,
  };
}

function issuerOf(stored: StoredCredentials | undefined): string | undefined {
  const url = stored?.discoveryState?.authorizationServerUrl;
  return url === undefined ? undefined : String(url);
}

function describeState(status: SignInStatus): string {
  switch (status.state) {
    case 'signed-in':
      return 'signed in';
    case 'expired':
      return status.renewable ? 'signed in (renews at next use)' : 'expired';
    case 'ended':
      return 'ended';
    case 'machine':
      return 'machine';
    default:
      return 'signed out';
  }
}

function describeExpiry(at: number, now: number, renewable: boolean): string {
  const minutes = Math.round(Math.abs(at - now) / 60_000);
  const span =
    minutes < 1 ? 'under a minute' : minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
  const when = at > now ? `in ${span}` : `${span} ago`;
  return renewable ? `${when}, renews itself` : when;
}
