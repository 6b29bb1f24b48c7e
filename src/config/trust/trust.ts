import { join } from 'node:path';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { createHomeFiles } from '../../home/index.js';
import type { ServerConfig, TrustRecord, TrustStore } from '../types.js';

const TRUST_FILE = 'trust.json';

/** Where the trust store lives: `<home>/trust.json`. */
export function trustStorePath(home: string): string {
  return join(home, TRUST_FILE);
}

function emptyStore(): TrustStore {
  return { version: 2, entries: new Map(), settings: new Map() };
}

/**
 * Read the trust store. A missing file is an empty store. A file that is not
 * a version-1 store is treated as empty too: the failure mode is being asked
 * again, never trusting something that was not approved. A symbolic link in
 * its place is refused (`HOME_UNSAFE`): a planted link would let a cloned
 * repository choose what counts as approved.
 */
export async function loadTrustStore(home: string): Promise<TrustStore> {
  return parseTrustStore(await createHomeFiles(home).readText(TRUST_FILE));
}

function parseTrustStore(text: string | undefined): TrustStore {
  if (text === undefined) return emptyStore();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return emptyStore();
  }
  // Version 1 kept fingerprints only; its entries still say what was approved.
  if (!isRecord(data) || (data.version !== 1 && data.version !== 2) || !isRecord(data.entries)) {
    return emptyStore();
  }
  const entries = new Map<string, Map<string, TrustRecord>>();
  for (const [file, servers] of Object.entries(data.entries)) {
    if (!isRecord(servers)) continue;
    const byName = new Map<string, TrustRecord>();
    for (const [name, record] of Object.entries(servers)) {
      const parsed = parseRecord(record);
      if (parsed) byName.set(name, parsed);
    }
    entries.set(file, byName);
  }
  const settings = new Map<string, string>();
  if (isRecord(data.settings)) {
    for (const [file, fingerprint] of Object.entries(data.settings)) {
      if (typeof fingerprint === 'string') settings.set(file, fingerprint);
    }
  }
  return { version: 2, entries, settings };
}

function parseRecord(value: unknown): TrustRecord | undefined {
  if (typeof value === 'string') return { fingerprint: value };
  if (!isRecord(value) || typeof value.fingerprint !== 'string') return undefined;
  return {
    fingerprint: value.fingerprint,
    ...(isRecord(value.asWritten) ? { asWritten: value.asWritten } : {}),
    ...(isRecord(value.variables) ? { variables: value.variables as Record<string, string> } : {}),
  };
}

/** What was approved for this entry's file and name, if anything (for showing what changed). */
export function approvedRecord(store: TrustStore, server: ServerConfig): TrustRecord | undefined {
  const file = server.origin.file;
  return file === undefined ? undefined : store.entries.get(file)?.get(server.name);
}

/**
 * Whether `server` may start: entries that cannot come from a cloned
 * repository (global, explicit, builtin, ad-hoc) always may; project and
 * ancestor entries only when this exact fingerprint was approved for this
 * file and name. Editing the entry changes the fingerprint and asks again.
 */
export function isTrusted(store: TrustStore, server: ServerConfig): boolean {
  if (!server.requiresTrust) return true;
  const file = server.origin.file;
  return file !== undefined && store.entries.get(file)?.get(server.name)?.fingerprint === server.fingerprint;
}

/** The servers among `servers` that need approval before they may start. */
export function untrustedServers(store: TrustStore, servers: readonly ServerConfig[]): ServerConfig[] {
  return servers.filter((server) => !isTrusted(store, server));
}

/** `server` marked as `loadConfig` leaves an entry nobody approved. */
export function markUnapproved(server: ServerConfig): ServerConfig {
  return { ...server, unapproved: true };
}

/** `server` as it runs once the person approved it (a front end that asked, then recorded the answer). */
export function markApproved(server: ServerConfig): ServerConfig {
  const { unapproved: _, ...approved } = server;
  return approved;
}

/**
 * Refuses an entry `loadConfig` left out as unapproved. Checked where a
 * server starts (the registry, the connectors), so a program that hands
 * `LoadedConfig.unapproved` on, or copies an entry, still never starts a
 * repository's server the user did not approve.
 */
export function assertApproved(server: ServerConfig): void {
  if (!server.unapproved) return;
  const where = server.origin.file ? ` from ${server.origin.file}` : '';
  throw new McpxError(ErrorCode.ConfigUntrusted, `server '${server.name}'${where} is not approved to run`, {
    server: server.name,
    origin: server.origin,
    causes: ['it comes with the project (a file a cloned repository can bring), and nobody approved it yet'],
    fixes: ['review it, then run `mcpx config trust` in this folder'],
  });
}

/** A file's host-wide settings awaiting approval (see `LoadedConfig.heldSettings`). */
export interface SettingsApproval {
  readonly file: string;
  readonly fingerprint: string;
}

/**
 * Record approval of `servers` (their current fingerprints, and what they
 * were as written) and of files' host-wide `settings`, and save the store.
 * A read-modify-write under the store's lock (`HomeFiles.update`), so
 * approvals recorded at the same time by other mcpx processes are all kept.
 * Returns the updated store.
 */
export async function trustServers(
  home: string,
  servers: readonly ServerConfig[],
  settings: readonly SettingsApproval[] = [],
): Promise<TrustStore> {
  let updated = emptyStore();
  await createHomeFiles(home).update(TRUST_FILE, (text) => {
    updated = withApprovals(parseTrustStore(text), servers, settings);
    return storeText(updated);
  });
  return updated;
}

function withApprovals(
  store: TrustStore,
  servers: readonly ServerConfig[],
  settings: readonly SettingsApproval[],
): TrustStore {
  const entries = new Map([...store.entries].map(([file, names]) => [file, new Map(names)]));
  for (const server of servers) {
    const file = server.origin.file;
    if (!server.requiresTrust || file === undefined) continue;
    const byName = entries.get(file) ?? new Map<string, TrustRecord>();
    byName.set(server.name, {
      fingerprint: server.fingerprint,
      ...(server.asWritten ? { asWritten: server.asWritten } : {}),
      ...(server.variables ? { variables: server.variables } : {}),
    });
    entries.set(file, byName);
  }
  const approvedSettings = new Map(store.settings);
  for (const { file, fingerprint } of settings) approvedSettings.set(file, fingerprint);
  return { version: 2, entries, settings: approvedSettings };
}

/**
 * Write the store atomically (temporary file, then rename) so a crash never
 * leaves half a file, readable by the user only (0600, folder 0700), never
 * through a link: it decides which commands run without asking. Under the
 * store's lock, so it never lands inside another process's `trustServers`.
 */
export async function saveTrustStore(home: string, store: TrustStore): Promise<void> {
  await createHomeFiles(home).update(TRUST_FILE, () => storeText(store));
}

function storeText(store: TrustStore): string {
  const data = {
    version: 2,
    entries: Object.fromEntries([...store.entries].map(([file, names]) => [file, Object.fromEntries(names)])),
    settings: Object.fromEntries(store.settings),
  };
  return `${JSON.stringify(data, null, 2)}\n`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
