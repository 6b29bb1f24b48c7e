import { say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { toJson } from '../output/json.js';
import { renderTable, truncate } from '../output/table.js';
import { forServers } from '../target/fan-out.js';
import { reportFailures } from '../target/report.js';

/** `mcpx resources [server]` */
export async function runResources(session: CliContext, name: string | undefined): Promise<number> {
  const outcomes = await forServers(session, name, (c) => c.listResources());
  const { io, options } = session;
  if (options.json) {
    io.stdout.write(
      toJson(outcomes.flatMap((o) => (o.ok ? [{ server: o.server.name, resources: o.value }] : []))),
    );
  } else {
    const rows = outcomes.flatMap((o) =>
      o.ok
        ? o.value.map((r) => [o.server.name, r.uri, r.mimeType ?? '', truncate(r.description ?? r.name, 60)])
        : [],
    );
    io.stdout.write(say`${renderTable(['SERVER', 'URI', 'TYPE', 'DESCRIPTION'], rows)}\n`);
  }
  return reportFailures(session, outcomes);
}

/** `mcpx templates [server]` */
export async function runTemplates(session: CliContext, name: string | undefined): Promise<number> {
  const outcomes = await forServers(session, name, (c) => c.listResourceTemplates());
  const { io, options } = session;
  if (options.json) {
    io.stdout.write(
      toJson(outcomes.flatMap((o) => (o.ok ? [{ server: o.server.name, resourceTemplates: o.value }] : []))),
    );
  } else {
    const rows = outcomes.flatMap((o) =>
      o.ok
        ? o.value.map((t) => [
            o.server.name,
            t.uriTemplate,
            t.mimeType ?? '',
            truncate(t.description ?? t.name, 60),
          ])
        : [],
    );
    io.stdout.write(say`${renderTable(['SERVER', 'URI TEMPLATE', 'TYPE', 'DESCRIPTION'], rows)}\n`);
  }
  return reportFailures(session, outcomes);
}
