import { resolve } from 'node:path';
import { type ClientAppRead, entryFromServer, type McpxEntry } from '../../config/client-apps/index.js';
import type { LoadedConfig, ServerConfig } from '../../config/index.js';

/** What the `mcpx serve` entry needs to know of this run of mcpx. */
export interface GatewayEntryContext {
  /** `--config` as given (relative to `cwd`), when the person pinned one file. */
  readonly configFile?: string | undefined;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The running node and mcpx script (`process.execPath`, `process.argv[1]`). */
  readonly execPath: string;
  readonly script: string;
  /** The profile the entry serves (`--profile P`), checked against the config by the caller. */
  readonly profile?: string | undefined;
  /** More `mcpx serve` flags, after the others (`mcpx exec`'s skills entry: `--skills-only`…). */
  readonly serveFlags?: readonly string[];
}

/**
 * The one entry `config export --via-gateway` writes: this very mcpx, started
 * as `node <script> serve`. A client app may start it with another PATH (a desktop
 * app does not read the shell's profile) and `npx -y` would fetch whatever
 * version is newest, so the absolute node and script paths of the running
 * mcpx are what starts the same mcpx from any client app.
 *
 * The client app must also make it read the same config. `--config` pins one file;
 * without it mcpx discovers the global file (from `MCPX_HOME`, carried when
 * set) and the project files from its working folder, which a client app chooses:
 * so a config with project layers gets this folder as the entry's `cwd`
 * (a dialect without `cwd` says so in a note).
 */
export function gatewayEntry(config: LoadedConfig, ctx: GatewayEntryContext): McpxEntry {
  const args = [resolve(ctx.script), 'serve'];
  if (ctx.configFile !== undefined) args.push('--config', resolve(ctx.cwd, ctx.configFile));
  if (ctx.profile !== undefined) args.push('--profile', ctx.profile);
  args.push(...(ctx.serveFlags ?? []));
  const projectLayers = config.files.some((f) => f.layer === 'project' || f.layer === 'ancestor');
  const home = ctx.env.MCPX_HOME;
  return {
    command: ctx.execPath,
    args,
    ...(home ? { env: { MCPX_HOME: resolve(ctx.cwd, home) } } : {}),
    ...(ctx.configFile === undefined && projectLayers ? { cwd: resolve(ctx.cwd) } : {}),
  };
}

/**
 * The client app's servers that are copies a plain `config export` wrote: the name
 * of one of mcpx's servers and the same command line (or URL). Anything else
 * in the client app's file is the person's own and stays.
 */
export function exportedCopies(read: ClientAppRead, servers: readonly ServerConfig[]): string[] {
  const ours = new Map(servers.map((s) => [s.name, entryFromServer(s)]));
  return read.servers
    .filter((theirs) => {
      const mine = ours.get(theirs.name);
      return mine !== undefined && sameLaunch(theirs.entry, mine);
    })
    .map((s) => s.name);
}

function sameLaunch(a: McpxEntry, b: McpxEntry): boolean {
  if (a.url !== undefined || b.url !== undefined) return a.url === b.url;
  return a.command === b.command && JSON.stringify(a.args ?? []) === JSON.stringify(b.args ?? []);
}
