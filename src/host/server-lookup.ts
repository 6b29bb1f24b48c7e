import { type LoadedConfig, suggest } from '../config/index.js';
import type { ServerConfig } from '../config/types.js';
import { ErrorCode, McpxError } from '../errors/index.js';

/** What the host knows when a server is asked for by name. */
export interface ServerLookup {
  readonly usable: readonly ServerConfig[];
  readonly adhoc: ServerConfig | undefined;
  readonly config: () => Promise<LoadedConfig>;
  readonly selfSkipped: ReadonlyMap<string, McpxError>;
  readonly untrusted: ReadonlyMap<string, ServerConfig>;
}

/** One server by name, or an error that says why it cannot be used and what to do. */
export async function findServer(name: string, lookup: ServerLookup): Promise<ServerConfig> {
  const { usable, adhoc } = lookup;
  const found = usable.find((s) => s.name === name);
  if (found) return found;
  if (adhoc) {
    const flag = adhoc.transport === 'stdio' ? '--stdio' : '--url';
    throw new McpxError(
      ErrorCode.UnknownServer,
      `with ${flag} the only server is '${adhoc.name}', not '${name}'`,
      {
        fixes: [`name the tool without a server prefix when using ${flag}`],
      },
    );
  }
  const config = await lookup.config();
  const unusable = config.unusable.get(name);
  if (unusable) throw unusable;
  const self = lookup.selfSkipped.get(name);
  if (self) throw self;
  const skipped = lookup.untrusted.get(name);
  if (skipped) {
    throw new McpxError(
      ErrorCode.ConfigUntrusted,
      `server '${name}' comes from a project config that is not trusted yet`,
      {
        server: name,
        origin: skipped.origin,
        fixes: ['review the entry, then run `mcpx config trust` to approve it'],
      },
    );
  }
  const disabled = [...config.servers, ...config.unapproved].find((s) => s.name === name && !s.enabled);
  if (disabled) {
    throw new McpxError(ErrorCode.UnknownServer, `server '${name}' is disabled`, {
      server: name,
      origin: disabled.origin,
      fixes: [`set "enabled": true for '${name}' in ${disabled.origin.file ?? 'the config'}`],
    });
  }
  const names = usable.map((s) => s.name);
  const guess = suggest(name, names);
  throw new McpxError(
    ErrorCode.UnknownServer,
    `no server named '${name}'${guess ? ` — did you mean '${guess}'?` : ''}`,
    {
      fixes: [
        names.length ? `configured servers: ${names.join(', ')}` : 'no servers are configured',
        'run `mcpx config path` to see which config files are read',
      ],
    },
  );
}
