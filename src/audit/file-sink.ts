import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { createHomeFiles, onProcessExit } from '../home/index.js';
import { jsonText } from '../text/index.js';
import type { AuditRecord, AuditSink } from './types.js';

/** Rotate once the file would pass this size. */
export const AUDIT_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** Rotated files kept (`audit.jsonl.1` … `.5`); the oldest is deleted. */
export const AUDIT_FILES_KEPT = 5;
/**
 * How long a record may wait in memory before it is written: the lines of every call that
 * ended meanwhile go in one write. A process that crashes (killed, out of memory) loses at
 * most this much; one that exits, however it exits, writes the rest first.
 */
export const AUDIT_FLUSH_MS = 100;
/** Written at once when this much piled up, so a burst of calls is never held in memory. */
const FLUSH_BYTES = 256 * 1024;

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
 * 0700), rotated by size (`audit.jsonl` → `.1` → … → `.keep`). `write` only queues: the lines
 * of the calls that ended within {@link AUDIT_FLUSH_MS} are appended together in one write,
 * so a call never waits on the disk and a busy gateway makes one write where it made one per
 * call. What is queued is written on `close()` and when the process exits (`process.on('exit')`),
 * synchronously, so nothing is lost but on a crash. A log that cannot be written is said once
 * through `onError`, and the calls go on.
 * Long because its queue, its rotation and its exit flush share one file's state in one closure.
 */
export function openAuditFile(options: AuditFileOptions): AuditSink & { close(): Promise<void> } {
  const maxBytes = options.maxBytes ?? AUDIT_FILE_MAX_BYTES;
  const keep = options.keep ?? AUDIT_FILES_KEPT;
  /** Records not made into lines yet: that waits for the end of the turn, after the call's reply. */
  let unlined: AuditRecord[] = [];
  let lining: NodeJS.Immediate | undefined;
  let pending: string[] = [];
  let pendingChars = 0;
  let failed = false;
  let file: { fd: number; size: number } | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** Set while lines wait: the process's exit writes them. */
  let atExit: (() => void) | undefined;
  // Known once the promise settles: until then lines wait (and an exit cannot write them).
  let path: string | false | undefined = typeof options.path === 'object' ? undefined : options.path;
  const known =
    typeof options.path === 'object'
      ? options.path.then(
          (resolved) => {
            path = resolved;
          },
          (error: unknown) => fail(`the audit log cannot be placed: ${(error as Error).message}`),
        )
      : Promise.resolve();

  const fail = (message: string) => {
    failed = true;
    unlined = [];
    pending = [];
    pendingChars = 0;
    atExit?.();
    atExit = undefined;
    options.onError(message);
  };
  const openFile = (at: string) => {
    mkdirSync(dirname(at), { recursive: true, mode: DIR_MODE });
    const fd = openSync(at, OPEN_FLAGS, FILE_MODE);
    try {
      // An existing file keeps its mode on open: the log is the owner's alone whoever made it.
      chmodSync(at, FILE_MODE);
      return { fd, size: fstatSync(fd).size };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  };
  const release = () => {
    if (file) closeSync(file.fd);
    file = undefined;
  };
  const rotate = (at: string) => {
    release();
    rmSync(`${at}.${keep}`, { force: true });
    for (let n = keep - 1; n >= 1; n--) renameMissingOk(`${at}.${n}`, `${at}.${n + 1}`);
    renameMissingOk(at, keep > 0 ? `${at}.1` : `${at}.old`);
    if (keep === 0) rmSync(`${at}.old`, { force: true });
  };
  /** The records so far as lines; written at once when enough piled up. */
  const line = () => {
    clearImmediate(lining);
    lining = undefined;
    const values = options.values === true;
    for (const record of unlined) {
      const text = jsonText(fileLine(record, values), 0);
      pending.push(text);
      pendingChars += text.length;
    }
    unlined = [];
    if (pendingChars >= FLUSH_BYTES && path !== undefined) flush();
  };
  /** Everything queued, in one write (rotating first when it would not fit). */
  const flush = () => {
    if (unlined.length > 0) line();
    clearTimeout(timer);
    timer = undefined;
    if (failed || pending.length === 0 || path === undefined) return;
    const chunk = Buffer.from(pending.join(''));
    pending = [];
    pendingChars = 0;
    atExit?.();
    atExit = undefined;
    if (path === false) return;
    try {
      file ??= openFile(path);
      if (file.size > 0 && file.size + chunk.length > maxBytes) {
        rotate(path);
        file = openFile(path);
      }
      for (let written = 0; written < chunk.length; )
        written += writeSync(file.fd, chunk, written, chunk.length - written);
      file.size += chunk.length;
    } catch (error) {
      try {
        release();
      } catch {}
      fail(`the audit log ${path} cannot be written, audit records are dropped: ${(error as Error).message}`);
    }
  };
  return {
    write(record) {
      if (failed || path === false) return;
      // Made a line after the turn, off the path between the upstream's answer and the client's.
      unlined.push(record);
      lining ??= setImmediate(line);
      atExit ??= onProcessExit(flush);
      if (!timer) {
        timer = setTimeout(() => void known.then(flush), AUDIT_FLUSH_MS);
        // The process's end writes what waits (onProcessExit): the timer keeps nobody alive.
        timer.unref();
      }
    },
    async close() {
      await known;
      flush();
      // Written again after a close, the sink opens the file again.
      try {
        release();
      } catch {}
    },
  };
}

/** The record as a line: argument names, and their masked values only when asked for. */
function fileLine(record: AuditRecord, values: boolean): Record<string, unknown> {
  const { arguments: args, ...rest } = record;
  return values ? { ...rest, arguments: args } : rest;
}

function renameMissingOk(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** The log's default place, `<home>/logs/audit.jsonl`, its folder made (or tightened to) 0700, links refused. */
export async function defaultAuditPath(home: string): Promise<string> {
  return join(await createHomeFiles(home).ensureDir('logs'), 'audit.jsonl');
}
