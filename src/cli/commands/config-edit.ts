import {
  type ConfigScope,
  type EditConfigFileResult,
  editConfigFile,
  type NewServerEntry,
  type ServerEdit,
} from '../../config/index.js';
import { forTerminal, say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { usageError } from '../context/global-options.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';

/** The flags of `mcpx config add`, as commander hands them over. */
export interface ConfigAddFlags {
  readonly scope?: string;
  readonly env?: readonly string[];
  readonly header?: readonly string[];
  readonly url?: string;
  readonly type?: string;
  readonly overwrite?: boolean;
}

/** `mcpx config add <name> [flags] -- <command> [args…]` or `--url URL`. */
export async function runConfigAdd(
  session: CliContext,
  name: string,
  command: readonly string[],
  flags: ConfigAddFlags,
): Promise<number> {
  const entry = newEntry(command, {
    ...flags,
    // `--env` and `--url` are also mcpx-wide flags (an ad-hoc server); commander gives them to mcpx.
    env: [...(flags.env ?? []), ...(session.options.env ?? [])],
    ...(flags.url === undefined && session.options.url !== undefined ? { url: session.options.url } : {}),
  });
  return edit(session, flags.scope, {
    kind: 'add',
    name: checkedName(name),
    entry,
    overwrite: flags.overwrite === true,
  });
}

/**
 * `mcpx config remove|enable|disable <name> [tool…] [--scope …]`: with tools, enable and
 * disable switch those tools of the server instead of the server itself.
 */
export async function runConfigSwitch(
  session: CliContext,
  kind: 'remove' | 'enable' | 'disable',
  name: string,
  flags: { readonly scope?: string },
  tools: readonly string[] = [],
): Promise<number> {
  if (tools.length === 0) return edit(session, flags.scope, { kind, name });
  if (kind === 'remove')
    throw usageError(
      'config remove takes a server only',
      `to switch tools off: mcpx config disable ${name} <tool…>`,
    );
  for (const tool of tools) checkedTool(tool);
  const wanted = [...new Set(tools)];
  const code = await edit(session, flags.scope, { kind, name, tools: wanted });
  // Asking the server would start it (or fail while it is offline): the names are taken as given.
  session.notice(
    `note: not checked against what '${name}' offers now; \`mcpx tools ${name}\` lists its tools`,
  );
  return code;
}

/** A tool name as `allowed_tools` / `disabled_tools` hold them: exact, never a glob. */
function checkedTool(tool: string): void {
  if (tool === '' || /[\s\u0000-\u001f\u007f*?]/.test(tool))
    throw usageError(
      `a tool name is the exact name the server gives it (no spaces or wildcards), got '${forTerminal(tool)}'`,
      'e.g. mcpx config disable github create_issue',
    );
}

async function edit(session: CliContext, scope: string | undefined, change: ServerEdit): Promise<number> {
  const { io, options } = session;
  if (options.config !== undefined)
    throw usageError(
      'config add, remove, enable and disable edit the global or project file; --config does not apply',
      'use --scope global (~/.mcpx/mcp.json) or --scope project (./.mcpx/mcp.json)',
    );
  const result = await editConfigFile({
    scope: scopeOf(scope),
    cwd: io.cwd,
    home: session.host.home,
    edit: change,
    signal: io.signal,
  });
  const tools = 'tools' in change ? change.tools : undefined;
  if (options.json) io.stdout.write(toJson({ ...jsonOf(change.name, result), ...(tools ? { tools } : {}) }));
  else io.stdout.write(say`${session.forPerson(sentence(change.name, result, tools))}\n`);
  return ExitCode.Ok;
}

function jsonOf(name: string, result: EditConfigFileResult) {
  return {
    server: name,
    outcome: result.outcome,
    file: result.file,
    scope: result.scope,
    created: result.created,
  };
}

function sentence(name: string, result: EditConfigFileResult, tools?: readonly string[]): string {
  const where = `${result.file}${result.created ? ' (created)' : ''}`;
  if (tools) {
    const which = `${tools.length === 1 ? 'tool' : 'tools'} ${tools.map((t) => `'${t}'`).join(', ')} of '${name}'`;
    if (result.outcome === 'unchanged')
      return `${which} in ${where} ${tools.length === 1 ? 'was' : 'were'} already so; nothing changed`;
    return `${result.outcome} ${which} in ${where}`;
  }
  switch (result.outcome) {
    case 'added':
      return `added '${name}' to ${where}`;
    case 'replaced':
      return `replaced '${name}' in ${where}`;
    case 'removed':
      return `removed '${name}' from ${where}`;
    case 'enabled':
      return `enabled '${name}' in ${where}`;
    case 'disabled':
      return `disabled '${name}' in ${where}`;
    case 'unchanged':
      return `'${name}' in ${where} was already so; nothing changed`;
  }
}

function scopeOf(scope: string | undefined): ConfigScope {
  if (scope === undefined || scope === 'global' || scope === 'user') return 'global';
  if (scope === 'project') return 'project';
  throw usageError(`--scope is global or project, not '${scope}'`, 'e.g. --scope project');
}

function checkedName(name: string): string {
  // The name becomes a tool prefix (`name.tool`) and a JSON key: no dots, spaces or controls.
  if (!/^[A-Za-z0-9_-]+$/.test(name))
    throw usageError(
      `a server name is letters, digits, '-' and '_', got '${forTerminal(name)}'`,
      'e.g. mcpx config add my-server -- npx -y some-mcp-server',
    );
  return name;
}

/** The entry to write, from the command after `--` or `--url`. */
function newEntry(command: readonly string[], flags: ConfigAddFlags): NewServerEntry {
  const headers = pairs(
    flags.header ?? [],
    ':',
    '--header',
    `e.g. --header "Authorization: Bearer \${TOKEN}"`,
  );
  const [executable, ...args] = command;
  if (flags.url !== undefined) {
    if (executable !== undefined)
      throw usageError(
        'give either --url or a command after --, not both',
        'e.g. mcpx config add docs --url https://example.com/mcp',
      );
    if ((flags.env ?? []).length > 0)
      throw usageError('--env is for a server mcpx starts (a command); a remote server takes --header');
    if (flags.type !== undefined && flags.type !== 'http' && flags.type !== 'sse')
      throw usageError(`--type is http or sse, not '${flags.type}'`);
    return {
      ...(flags.type ? { type: flags.type } : {}),
      url: flags.url,
      ...(Object.keys(headers).length ? { headers } : {}),
    };
  }
  if (executable === undefined)
    throw usageError(
      'config add needs the server: a command after -- or --url URL',
      'e.g. mcpx config add fs -- npx -y @modelcontextprotocol/server-filesystem . | mcpx config add docs --url https://example.com/mcp',
    );
  if (flags.type !== undefined) throw usageError('--type goes with --url');
  if (Object.keys(headers).length) throw usageError('--header goes with --url (a remote server)');
  const env = pairs(flags.env ?? [], '=', '--env', `e.g. --env API_KEY=\${API_KEY}`);
  return {
    command: executable,
    ...(args.length ? { args } : {}),
    ...(Object.keys(env).length ? { env } : {}),
  };
}

function pairs(
  values: readonly string[],
  separator: string,
  flag: string,
  example: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf(separator);
    const key = at > 0 ? value.slice(0, at).trim() : '';
    if (key === '' || /\s/.test(key))
      throw usageError(`${flag} takes NAME${separator}VALUE, got '${forTerminal(value)}'`, example);
    out[key] = separator === ':' ? value.slice(at + 1).trimStart() : value.slice(at + 1);
  }
  return out;
}
