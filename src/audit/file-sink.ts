import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createHomeFiles } from '../home/index.js';
import { jsonText } from '../text/index.js';
import type { AuditRecord, AuditSink } from './types.js';

/** Rotate once the file would pass this size. */
export const AUDIT_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** Rotated files kept (`audit.jsonl.1` … `.5`); the oldest is deleted. */
export const AUDIT_FILES_KEPT = 5;

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
// A link planted where the log goes is refused, never followed (absent on Windows: 0).
const OPEN_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

export interface AuditFileOptions {
  /** The file, or a promise of it (the host knows it once the config is read); `false`: nothing is written. */
  readonly path: string | false | Promise<string | false>;
  /** With the arguments' (masked) values, not only their names. */
  readonly values?: boolean;
  readonly maxBytes?: number;
  readonly keep?: number;
  /** Told once, when the log cannot be written; from then on records are dropped. */
  readonly onError: (message: string) => void;
}

/**
 * The audit log as a file of JSON lines, readable by its owner only (0600, its folder made
 * 0700), rotated by size (`audit.jsonl` → `.1` → … → `.keep`). `write` only queues: lines are
 * appended behind the calls, whatever piled up meanwhile in one write, so a call never waits on
 * the disk; a log that cannot be written is said once through `onError`, and the calls go on.
 */
export function openAuditFile(options: AuditFileOptions): AuditSink & { close(): Promise<void> } {
  const maxBytes = options.maxBytes ?? AUDIT_FILE_MAX_BYTES;
  const keep = options.keep ?? AUDIT_FILES_KEPT;
  let pending: string[] = [];
  let draining: Promise<void> | undefined;
  let failed = false;
  let file: { handle: FileHandle; path: string; size: number } | undefined;

  const openFile = async (path: string) => {
    await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
    const handle = await open(path, OPEN_FLAGS, FILE_MODE);
    try {
      // An existing file keeps its mode on open: the log is the owner's alone whoever made it.
      await handle.chmod(FILE_MODE);
      return { handle, path, size: (await handle.stat()).size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  };
  const rotate = async (path: string) => {
    await file?.handle.close();
    file = undefined;
    await rm(`${path}.${keep}`, { force: true });
    for (let n = keep - 1; n >= 1; n--) await rename(`${path}.${n}`, `${path}.${n + 1}`).catch(ignoreMissing);
    await rename(path, keep > 0 ? `${path}.1` : `${path}.old`).catch(ignoreMissing);
    if (keep === 0) await rm(`${path}.old`, { force: true });
  };
  const drain = async () => {
    const path = await options.path;
    if (path === false) {
      pending = [];
      return;
    }
    while (pending.length > 0 && !failed) {
      const chunk = pending.join('');
      pending = [];
      try {
        file ??= await openFile(path);
        const bytes = Buffer.byteLength(chunk);
        if (file.size > 0 && file.size + bytes > maxBytes) {
          await rotate(path);
          file = await openFile(path);
        }
        await file.handle.write(chunk);
        file.size += bytes;
      } catch (error) {
        failed = true;
        pending = [];
        options.onError(
          `the audit log ${path} cannot be written, audit records are dropped: ${(error as Error).message}`,
        );
      }
    }
  };
  const schedule = () => {
    draining ??= drain().finally(() => {
      draining = undefined;
      if (pending.length > 0 && !failed) schedule();
    });
  };
  return {
    write(record) {
      if (failed) return;
      pending.push(jsonText(fileLine(record, options.values === true), 0));
      schedule();
    },
    async close() {
      while (draining) await draining;
      await file?.handle.close().catch(() => {});
      file = undefined;
    },
  };
}

/** The record as a line: argument names, and their masked values only when asked for. */
function fileLine(record: AuditRecord, values: boolean): Record<string, unknown> {
  const { arguments: args, ...rest } = record;
  return values ? { ...rest, arguments: args } : rest;
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}

/** The log's default place, `<home>/logs/audit.jsonl`, its folder made (or tightened to) 0700, links refused. */
export async function defaultAuditPath(home: string): Promise<string> {
  return join(await createHomeFiles(home).ensureDir('logs'), 'audit.jsonl');
}
