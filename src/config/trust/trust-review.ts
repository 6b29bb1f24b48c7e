import { canonicalJson } from '../entry/fingerprint.js';
import { interpolate, variablesIn } from '../resolve/interpolate.js';
import type { HeldSettings, ServerConfig, TrustRecord } from '../types.js';

/**
 * What a person must see to approve a repository's server entry: everything
 * that decides what runs and where data goes, as written (with its `${VAR}`
 * names) and as it will run, and no secret. Values that come from variables,
 * and the values of env, headers and the oauth block, are never shown; where
 * each comes from is. With the record of an earlier approval, the lines that
 * changed come first, before → after.
 *
 * Plain text lines: the front end strips terminal controls and reveals
 * hidden characters (the file came from a repository).
 */
export function describeForTrust(server: ServerConfig, previous?: TrustRecord): string[] {
  const where = `${server.origin.file ?? '(unknown file)'}${server.origin.line ? `:${server.origin.line}` : ''}`;
  const written = server.asWritten ?? {};
  const lines = previous
    ? [
        `Server '${server.name}' in ${where} changed since you approved it:`,
        ...describeChanges(server, previous),
      ]
    : [`Project config ${where} defines server '${server.name}':`];
  if (previous) lines.push('Now it is:');
  lines.push(...describeEntry(server, written));
  lines.push(
    previous
      ? 'Start it as it is now? Only say yes if you trust this repository.'
      : 'Start it? Only say yes if you trust this repository.',
  );
  return lines;
}

/** The host-wide settings of a repository file that wait for approval. */
export function describeSettingsForTrust(held: HeldSettings): string[] {
  const lines = [`Project config ${held.file} sets host-wide settings:`];
  if (held.permission) lines.push(`  permission: ${held.permission} (the level agents get)`);
  if (held.roots) lines.push(`  roots:      ${held.roots.join(', ')} (directories servers may work in)`);
  if (held.raises) {
    lines.push(`  permission ${held.permission} is above your own level: a project file can only lower it`);
  }
  return lines;
}

function describeEntry(server: ServerConfig, written: Readonly<Record<string, unknown>>): string[] {
  const lines: string[] = [];
  const show = (label: string, text: string) => lines.push(`  ${`${label}:`.padEnd(16)}${text}`);
  const masked = maskedEnv(server);
  const commandLine = commandAsWritten(written);
  if (commandLine !== undefined) {
    show('command', commandLine);
    const runs = expandMasked(commandLine, masked);
    if (runs !== commandLine) show('runs as', runs);
  }
  for (const field of ['url', 'cwd'] as const) {
    const value = written[field];
    if (typeof value !== 'string') continue;
    show(field, value);
    const runs = expandMasked(value, masked);
    if (runs !== value) show('resolves to', runs);
  }
  const variables = Object.entries(server.variables ?? {});
  if (variables.length > 0) {
    const names = variables.map(([name, digest]) => (digest === 'unset' ? `${name} (unset)` : name));
    show('your variables', `${names.join(', ')} (values hidden; a new value asks again)`);
  }
  for (const [field, label] of [
    ['env', 'env'],
    ['headers', 'headers'],
    ['oauth', 'oauth'],
  ] as const) {
    const block = written[field];
    if (isRecord(block) && Object.keys(block).length > 0)
      show(label, describeValues(block, field === 'oauth' ? OAUTH_LOCATIONS : undefined));
  }
  const passthrough = written.envPassthrough;
  if (Array.isArray(passthrough) && passthrough.length > 0) {
    show('passes through', `${passthrough.join(', ')} from your environment`);
  }
  const hosts = written.allowedHosts;
  if (Array.isArray(hosts) && hosts.length > 0) show('allowed_hosts', hosts.join(', '));
  for (const field of ['type', 'protocol'] as const) {
    if (written[field] !== undefined) show(field, String(written[field]));
  }
  return lines;
}

function describeChanges(server: ServerConfig, previous: TrustRecord): string[] {
  if (!previous.asWritten) {
    return ['  (this approval was recorded by an older mcpx, which kept no details of the entry)'];
  }
  const before = previous.asWritten;
  const after = server.asWritten ?? {};
  const lines: string[] = [];
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (canonicalJson(before[field] ?? null) === canonicalJson(after[field] ?? null)) continue;
    lines.push(
      `  ${fieldLabel(field)}: ${showField(field, before[field])} → ${showField(field, after[field])}`,
    );
  }
  const was = previous.variables ?? {};
  const now = server.variables ?? {};
  for (const name of new Set([...Object.keys(was), ...Object.keys(now)])) {
    if (was[name] === now[name]) continue;
    if (was[name] === undefined) lines.push(`  now uses your variable ${name}`);
    else if (now[name] === undefined) lines.push(`  no longer uses your variable ${name}`);
    else if (now[name] === 'unset') lines.push(`  ${name} is no longer set`);
    else if (was[name] === 'unset') lines.push(`  ${name} is now set`);
    else lines.push(`  the value of ${name} changed`);
  }
  if (lines.length === 0) lines.push('  (the same as written; a value it runs with changed)');
  return lines;
}

const FIELD_LABELS: Readonly<Record<string, string>> = {
  envPassthrough: 'env_passthrough',
  allowedHosts: 'allowed_hosts',
};

function fieldLabel(field: string): string {
  return FIELD_LABELS[field] ?? field;
}

/** A field's written value for a before → after line, secrets masked. */
function showField(field: string, value: unknown): string {
  if (value === undefined) return '(none)';
  if ((field === 'env' || field === 'headers' || field === 'oauth') && isRecord(value)) {
    return Object.keys(value).length === 0
      ? '(none)'
      : describeValues(value, field === 'oauth' ? OAUTH_LOCATIONS : undefined);
  }
  if (field === 'command' || field === 'args') {
    return Array.isArray(value) ? value.map(String).join(' ') : String(value);
  }
  return Array.isArray(value) ? value.map(String).join(', ') : String(value);
}

/**
 * oauth settings that say where a credential is read from or sent (a file, a variable's name, an
 * IdP): no secret, and what the person must see before mcpx reads that file or variable for a
 * repository's server and hands what it holds to an authorization server.
 */
const OAUTH_LOCATIONS: ReadonlySet<string> = new Set([
  'assertion_file',
  'assertion_env',
  'id_token_file',
  'id_token_env',
  'idp_token_endpoint',
  'idp_issuer',
]);

/**
 * `KEY ← ${VAR}` for a value that is a variable, `KEY (written in the file, hidden)` otherwise;
 * `KEY: value` for the keys in `shown`, which name places, not secrets.
 */
function describeValues(block: Readonly<Record<string, unknown>>, shown?: ReadonlySet<string>): string {
  return Object.entries(block)
    .map(([key, value]) => {
      if (shown?.has(key) && typeof value === 'string') return `${key}: ${value}`;
      if (typeof value !== 'string') return `${key} (hidden)`;
      const names = variablesIn(value);
      if (names.length === 0) return `${key} (written in the file, hidden)`;
      const whole = names.length === 1 && /^\$\{[^}]*\}$/.test(value.trim());
      return whole
        ? `${key} ← $${names[0]}`
        : `${key} ← text with ${names.map((n) => `$${n}`).join(', ')} (hidden)`;
    })
    .join('; ');
}

function commandAsWritten(written: Readonly<Record<string, unknown>>): string | undefined {
  const command = written.command;
  const args = Array.isArray(written.args) ? written.args.map(String) : [];
  if (Array.isArray(command)) return [...command.map(String), ...args].join(' ');
  return typeof command === 'string' ? [command, ...args].join(' ') : undefined;
}

/** Stand-ins for variable values: `‹$NAME›` where set, unset where unset (so a default shows). */
function maskedEnv(server: ServerConfig): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(server.variables ?? {}).map(([name, digest]) => [
      name,
      digest === 'unset' ? undefined : `‹$${name}›`,
    ]),
  );
}

function expandMasked(template: string, masked: Readonly<Record<string, string | undefined>>): string {
  const result = interpolate(template, masked);
  return result.ok ? result.value : template;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
