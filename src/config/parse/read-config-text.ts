import { constants } from 'node:fs';
import { lstat, open, realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ErrorCode, McpxError } from '../../errors/index.js';

/**
 * Largest config or client app file mcpx reads. Generous on purpose: Claude Code's
 * `~/.claude.json` keeps every project's history and grows to tens of MB.
 */
export const MAX_CONFIG_FILE_BYTES = 64 * 1024 * 1024;

/** A config or client app file's text, and where it really is when it was reached through a link. */
export interface ConfigText {
  readonly text: string;
  /**
   * The real path when the file or its folder is a symbolic link. A cloned
   * repository can link `.mcp.json` to `~/.aws/credentials`: such a file's
   * content is never shown (no excerpt, no token in a message), only the link
   * and its target.
   */
  readonly linkedTo?: string;
}

// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Reads a file mcpx did not write (its config layers, `--config`, another
 * client app's file) the one safe way: a regular file only (never a FIFO, a device
 * or a directory), at most {@link MAX_CONFIG_FILE_BYTES}, and links noted.
 * Rejects with the `fs` error for a missing file (callers treat ENOENT as "no
 * such layer"), and with a `CONFIG_UNREADABLE` McpxError for a file that must
 * not be read.
 */
export async function readConfigText(path: string, maxBytes = MAX_CONFIG_FILE_BYTES): Promise<ConfigText> {
  const handle = await open(path, OPEN_FLAGS);
  let text: string;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notARegularFile(path, stats);
    if (stats.size > maxBytes) throw tooLarge(path, stats.size, maxBytes);
    // Read at most one byte past the cap: a file that grows after the stat is refused, not read without end.
    const buffer = Buffer.alloc(stats.size + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > maxBytes) throw tooLarge(path, length, maxBytes);
      if (length === buffer.length) break;
    }
    text = buffer.toString('utf8', 0, length);
  } finally {
    await handle.close();
  }
  const linkedTo = await linkTarget(path);
  return linkedTo === undefined ? { text } : { text, linkedTo };
}

/** The real path when `path` or its folder (`.mcpx/`, `.vscode/`) is a symbolic link. */
async function linkTarget(path: string): Promise<string | undefined> {
  const [file, folder] = await Promise.all([lstat(path), lstat(dirname(path))]);
  if (!file.isSymbolicLink() && !folder.isSymbolicLink()) return undefined;
  return realpath(path);
}

function notARegularFile(path: string, stats: { isDirectory(): boolean; isFIFO(): boolean }): McpxError {
  const what = stats.isDirectory()
    ? 'a directory'
    : stats.isFIFO()
      ? 'a named pipe (FIFO)'
      : 'a device or socket';
  return new McpxError(
    ErrorCode.ConfigUnreadable,
    `cannot read config file ${path}: it is ${what}, not a file`,
    {
      origin: { file: path },
      fixes: [`remove or rename ${path}; mcpx reads only regular JSON files there`],
    },
  );
}

function tooLarge(path: string, size: number, maxBytes: number): McpxError {
  const mb = (bytes: number) => `${Math.ceil(bytes / (1024 * 1024))} MB`;
  return new McpxError(
    ErrorCode.ConfigUnreadable,
    `cannot read config file ${path}: it is larger than ${mb(maxBytes)} (${size >= maxBytes ? 'at least ' : ''}${mb(size)})`,
    {
      origin: { file: path },
      fixes: [`check that ${path} is the config file you meant; a config file is a few KB`],
    },
  );
}

/**
 * The problems found in a linked file, with nothing of its content: the
 * kind of problem and its line, the link and its target, and how to remove
 * the link. (A parse error's message quotes the offending token, and its
 * excerpt the whole line.)
 */
export function hideLinkedContent(problem: McpxError, path: string, linkedTo: string): McpxError {
  const { origin } = problem.context;
  const at =
    origin?.line === undefined
      ? ''
      : `:${origin.line}${origin.column === undefined ? '' : `:${origin.column}`}`;
  const what = problem.code === ErrorCode.ConfigInvalidJson ? 'is not valid JSON' : 'is not a valid config';
  // Only the origin is kept: the field, expected/received values and excerpt all quote the file.
  return new McpxError(
    problem.code,
    `${path}${at} ${what}; it is a link to ${linkedTo}, so its content is not shown`,
    {
      ...(origin ? { origin } : {}),
      fixes: [`check that ${linkedTo} is the config you meant to link; if not, remove the link: rm ${path}`],
    },
  );
}
