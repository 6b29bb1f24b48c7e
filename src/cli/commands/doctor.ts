import { displayPath, ErrorCode, type McpxError } from '../../errors/index.js';
import { say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { ExitCode, exitCodeFor } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { renderTable } from '../output/table.js';
import { renderWaterfall, serverWaterfall, type WaterfallSpan } from '../output/waterfall.js';
import { renderError } from '../target/report.js';
import { commandTracing } from '../tracing.js';

interface Check {
  readonly server: string;
  readonly healthy: boolean;
  readonly state: string;
  readonly transport: string;
  readonly target: string;
  readonly connectMs?: number;
  readonly protocol?: string;
  readonly tools?: number;
  readonly origin: string;
  /** Remote servers: `signed in` (tokens from `mcpx auth`), `machine` (client credentials), `required`, or `none`. */
  readonly auth: string;
  readonly error?: McpxError;
  /** `--trace`: the server's connect and listings, span by span. */
  readonly spans?: readonly WaterfallSpan[];
}

/**
 * `mcpx doctor`: start every configured server, time its handshake, count its
 * tools, and for each one that fails print the full explanation and the fix.
 * With `--trace`, each server's connect is drawn as a waterfall of its spans (spawn,
 * handshake, era probe, listings), kept in memory: no collector needed.
 * Long because it is one report in order (connect, table, failures, trace waterfall) over the same
 * results.
 */
export async function runDoctor(session: CliContext): Promise<number> {
  const { io, options } = session;
  const registry = await session.host.registry();
  await registry.connectAll({ signal: io.signal });
  // Resources and prompts a server declares must list too: a failure there is a failure of the server.
  await Promise.all(registry.list().map((s) => registry.checkListings(s.name)));
  const statuses = registry.list();
  const { TokenStore } = await import('../../auth/index.js');
  const store = new TokenStore(session.host.home);
  const signedIn = new Set<string>();
  for (const s of statuses) {
    if (s.config.url && (await store.load(s.name, s.config.url).catch(() => undefined))?.tokens)
      signedIn.add(s.name);
  }
  const { machineCredentials } = await import('../../auth/index.js');
  const machine = new Set(
    statuses
      .filter((s) => {
        try {
          return machineCredentials(s.config) !== undefined;
        } catch {
          return true; // set up for client credentials, but incomplete: the error says what is missing
        }
      })
      .map((s) => s.name),
  );
  const authState = (name: string, url: string | undefined, error: McpxError | undefined) =>
    !url
      ? '-'
      : error?.code === ErrorCode.AuthRequired
        ? 'required'
        : machine.has(name)
          ? 'machine'
          : signedIn.has(name)
            ? 'signed in'
            : 'none';
  const checks: Check[] = statuses.map((s) => ({
    server: s.name,
    healthy: s.condition === 'ready' && !s.error,
    state: s.condition,
    transport: s.config.transport,
    target: s.config.url ?? [s.config.command, ...s.config.args].join(' '),
    origin: s.config.origin.file ?? s.config.origin.layer,
    auth: authState(s.name, s.config.url, s.error),
    ...(s.connection
      ? {
          connectMs: Math.round(s.connection.connectMs),
          protocol: s.connection.protocolVersion ?? 'unknown',
          ...(s.listingError ? {} : { tools: s.tools.length }),
        }
      : {}),
    ...(s.listingError || s.error ? { error: s.listingError ?? s.error } : {}),
  }));
  if (!session.adhoc) {
    for (const [name, error] of (await session.host.config()).unusable) {
      checks.push({
        server: name,
        healthy: false,
        state: 'error',
        transport: '-',
        target: '-',
        auth: '-',
        origin: error.context.origin?.file ?? '',
        error,
      });
    }
  }
  const traced = commandTracing()?.spans();
  const withSpans = traced
    ? checks.map((check) => ({ ...check, spans: serverWaterfall(traced, check.server) }))
    : checks;
  if (options.json) {
    io.stdout.write(
      toJson(
        withSpans.map(({ error, ...check }) => ({
          ...check,
          ...(error ? { error: { code: error.code, message: error.message, fixes: error.fixes } } : {}),
        })),
      ),
    );
  } else {
    io.stdout.write(
      say`${renderTable(
        ['', 'SERVER', 'HANDSHAKE', 'PROTOCOL', 'TOOLS', 'AUTH', 'ORIGIN'],
        checks.map((c) => [
          c.healthy ? 'ok' : 'FAIL',
          c.server,
          c.connectMs === undefined ? '-' : `${c.connectMs} ms`,
          c.protocol ?? '-',
          c.tools === undefined ? '-' : String(c.tools),
          c.auth,
          displayPath(c.origin, io.homedir),
        ]),
      )}\n`,
    );
    for (const { server, spans } of withSpans)
      if (spans) io.stdout.write(say`\n${renderWaterfall(server, spans)}`);
    for (const { error } of checks)
      if (error) io.stdout.write(say`\n${renderError(error, true, io.homedir)}\n`);
    const broken = checks.filter((c) => !c.healthy).length;
    io.stdout.write(say`\n${checks.length - broken} healthy, ${broken} failing\n`);
  }
  const firstError = checks.find((c) => c.error)?.error;
  return firstError ? exitCodeFor(firstError.code) : ExitCode.Ok;
}
