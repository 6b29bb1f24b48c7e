import { say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { toJson } from '../output/json.js';
import { renderTable } from '../output/table.js';
import { forServers } from '../target/fan-out.js';
import { reportFailures } from '../target/report.js';

/** `mcpx ping [server]`: connect time and ping round trip per server. */
export async function runPing(session: CliContext, name: string | undefined): Promise<number> {
  const outcomes = await forServers(session, name, (c) => c.ping({ signal: session.io.signal }));
  const { io, options } = session;
  const rows = outcomes.flatMap((o) =>
    o.ok
      ? [
          {
            server: o.server.name,
            connectMs: Math.round(o.connection.connectMs),
            pingMs: Number(o.value.toFixed(2)),
            protocol: o.connection.protocolVersion,
          },
        ]
      : [],
  );
  if (options.json) io.stdout.write(toJson(rows));
  else
    io.stdout.write(
      say`${renderTable(
        ['SERVER', 'CONNECT', 'PING', 'PROTOCOL'],
        rows.map((r) => [r.server, `${r.connectMs} ms`, `${r.pingMs} ms`, r.protocol ?? '-']),
      )}\n`,
    );
  return reportFailures(session, outcomes);
}
