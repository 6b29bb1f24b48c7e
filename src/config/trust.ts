import { join } from 'node:path';
import { createHomeFiles } from '../home/index.js';
import type { ServerConfig } from './types.js';

/**
 * Approved project/ancestor entries: config file → server name → the
 * fingerprint approved. Maps, not objects, so a server named `__proto__`
 * is just a name.
 */
export interface TrustStore {
  readonly version: 1;
  readonly entries: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

const TRUST_FILE = 'trust.json';

/** Where the trust store lives: `<home>/trust.json`. */
export function trustStorePath(home: string): string {
  return join(home, TRUST_FILE);
}

function emptyStore(): TrustStore {
  return { version: 1, entries: new Map() };
}

/**
 * Read the trust store. A missing file is an empty store. A file that is not
 * a version-1 store is treated as empty too: the failure mode is being asked
 * again, never trusting something that was not approved. A symbolic link in
 * its place is refused (`HOME_UNSAFE`): a planted link would let a cloned
 * repository choose what counts as approved.
 */
export async function loadTrustStore(home: string): Promise<TrustStore> {
  const text = await createHomeFiles(home).readText(TRUST_FILE);
  if (text === undefined) return emptyStore();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return emptyStore();
  }
  if (!isRecord(data) || data.version !== 1 || !isRecord(data.entries)) return emptyStore();
  const entries = new Map<string, Map<string, string>>();
  for (const [file, servers] of Object.entries(data.entries)) {
    if (!isRecord(servers)) continue;
    const byName = new Map<string, string>();
    for (const [name, fingerprint] of Object.entries(servers)) {
      if (typeof fingerprint === 'string') byName.set(name, fingerprint);
    }
    entries.set(file, byName);
  }
  return { version: 1, entries };
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
  return file !== undefined && store.entries.get(file)?.get(server.name) === server.fingerprint;
}

/** The servers among `servers` that need approval before they may start. */
export function untrustedServers(store: TrustStore, servers: readonly ServerConfig[]): ServerConfig[] {
  return servers.filter((server) => !isTrusted(store, server));
}

/**
 * Record approval of `servers` (their current fingerprints) and save the
 * store. Re-reads the store first so approvals made meanwhile by another
 * mcpx process are kept. Returns the updated store.
 */
export async function trustServers(home: string, servers: readonly ServerConfig[]): Promise<TrustStore> {
  const store = await loadTrustStore(home);
  const entries = new Map([...store.entries].map(([file, names]) => [file, new Map(names)]));
  for (const server of servers) {
    const file = server.origin.file;
    if (!server.requiresTrust || file === undefined) continue;
    const byName = entries.get(file) ?? new Map<string, string>();
    byName.set(server.name, server.fingerprint);
    entries.set(file, byName);
  }
  const updated: TrustStore = { version: 1, entries };
  await saveTrustStore(home, updated);
  return updated;
}

/**
 * Write the store atomically (temporary file, then rename) so a crash never
 * leaves half a file, readable by the user only (0600, folder 0700), never
 * through a link: it decides which commands run without asking.
 */
export async function saveTrustStore(home: string, store: TrustStore): Promise<void> {
  const data = {
    version: 1,
    entries: Object.fromEntries([...store.entries].map(([file, names]) => [file, Object.fromEntries(names)])),
  };
  await createHomeFiles(home).writeText(TRUST_FILE, `${JSON.stringify(data, null, 2)}\n`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
