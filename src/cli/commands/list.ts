import { displayPath, type McpxError } from '../../errors/index.js';
import { say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { renderTable } from '../output/table.js';
import { writeErrors } from '../target/report.js';

interface ListRow {
  readonly name: string;
  readonly state: string;
  readonly transport: string;
  readonly protocol: string | undefined;
  readonly tools: number | undefined;
  readonly layer: string;
  readonly file: string | undefined;
  readonly error: McpxError | undefined;
  /** Why a server was deliberately not started (it would start mcpx itself). */
  readonly reason?: string;
}

/** `mcpx list`: every server with its origin, state, protocol and tool count, connected in parallel. */
export async function runList(session: CliContext): Promise<number> {
  const { io, options } = session;
  const registry = await session.host.registry();
  const statuses = await registry.connectAll({ signal: io.signal });
  const rows: ListRow[] = statuses.map((s) => ({
    name: s.name,
    state: s.condition,
    transport: s.config.transport,
    protocol: s.connection?.protocolVersion,
    tools: s.connection && !s.listingError ? s.tools.length : undefined,
    layer: s.config.origin.layer,
    file: originFile(s.config.origin),
    error: s.listingError ?? s.error,
  }));
  if (!session.adhoc) {
    const config = await session.host.config();
    // Not started, but there: a person should see the repository's servers waiting for `config trust`.
    for (const s of await session.host.untrusted()) {
      rows.push({ ...configRow(s.name, s.transport, s.origin), state: 'untrusted', error: undefined });
    }
    // Left out on purpose, so not a failure of the command: the reason says why.
    for (const [name, why] of await session.host.selfSkipped()) {
      const s = [...config.servers, ...config.unapproved].find((server) => server.name === name);
      if (!s) continue;
      rows.push({
        ...configRow(name, s.transport, s.origin),
        state: 'skipped',
        error: undefined,
        reason: why.message,
      });
    }
    for (const s of [...config.servers, ...config.unapproved].filter((server) => !server.enabled)) {
      rows.push({ ...configRow(s.name, s.transport, s.origin), state: 'disabled', error: undefined });
    }
    for (const [name, error] of config.unusable) {
      rows.push({
        ...configRow(name, '', {
          layer: error.context.origin?.layer ?? '',
          file: error.context.origin?.file,
        }),
        state: 'error',
        error,
      });
    }
  }
  if (options.json) {
    io.stdout.write(
      toJson(rows.map(({ error, ...row }) => ({ ...row, ...(error ? { error: error.message } : {}) }))),
    );
  } else {
    io.stdout.write(
      say`${renderTable(
        ['SERVER', 'STATE', 'TOOLS', 'PROTOCOL', 'ORIGIN'],
        rows.map((r) => [
          r.name,
          r.state,
          r.tools === undefined ? '-' : String(r.tools),
          r.protocol ?? '-',
          r.file ? `${displayPath(r.file, io.homedir)} (${r.layer})` : r.layer,
        ]),
      )}\n`,
    );
  }
  writeErrors(
    session,
    rows.flatMap((row) => (row.error ? [row.error] : [])),
  );
  return rows.some((r) => r.error) ? ExitCode.Unreachable : ExitCode.Ok;
}

function configRow(name: string, transport: string, origin: Parameters<typeof originFile>[0]) {
  return {
    name,
    transport,
    protocol: undefined,
    tools: undefined,
    layer: origin.layer,
    file: originFile(origin),
  };
}

/** A server read live from another client app's file is shown with its line there (the mcpx file only names the client app). */
function originFile(origin: {
  layer: string;
  file?: string | undefined;
  line?: number;
  importedBy?: string;
}) {
  return origin.importedBy && origin.file && origin.line ? `${origin.file}:${origin.line}` : origin.file;
}
