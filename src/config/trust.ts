import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, McpxError } from '../errors/index.js';
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

/** Where the trust store lives: `<home>/trust.json`. */
export function trustStorePath(home: string): string {
  return join(home, 'trust.json');
}

function emptyStore(): TrustStore {
  return { version: 1, entries: new Map() };
}

/**
 * Read the trust store. A missing file is an empty store. A file that is not
 * a version-1 store is treated as empty too: the failure mode is being asked
 * again, never trusting something that was not approved.
 */
export async function loadTrustStore(home: string): Promise<TrustStore> {
  const path = trustStorePath(home);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyStore();
    throw new McpxError(ErrorCode.ConfigUnreadable, `cannot read the trust store ${path}`, {
      cause: error,
      origin: { file: path },
      fixes: [`check the permissions of ${path} (it should be readable by you only: chmod 600)`],
    });
  }
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
 * leaves half a file, readable by the user only (0600, directory 0700):
 * it decides which commands run without asking.
 */
export async function saveTrustStore(home: string, store: TrustStore): Promise<void> {
  const created = await mkdir(home, { recursive: true, mode: 0o700 });
  // mkdir's mode is filtered by the umask; make sure the directory we created is private.
  if (created !== undefined) await chmod(home, 0o700);
  const data = {
    version: 1,
    entries: Object.fromEntries([...store.entries].map(([file, names]) => [file, Object.fromEntries(names)])),
  };
  const path = trustStorePath(home);
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw new McpxError(ErrorCode.ConfigUnreadable, `cannot write the trust store ${path}`, {
      cause: error,
      origin: { file: path },
      fixes: [`check that ${home} is writable by you`],
    });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
