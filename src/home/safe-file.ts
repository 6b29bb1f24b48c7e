import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { chmod, type FileHandle, lstat, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ErrorCode, McpxError } from '../errors/index.js';
import { type FileLockOptions, updateUnderLock } from './file-lock.js';

/**
 * A read-modify-write's step: the file's text as it is now (`undefined` when
 * there is none) in, the text to write out (`undefined`, or the same text, to
 * leave the file as it is). It runs under the file's lock, so it sees every
 * change another process made before it; it may throw to change nothing.
 */
export type FileChange = (current: string | undefined) => string | undefined | Promise<string | undefined>;

/**
 * mcpx's own files under its home (`~/.mcpx`, or `MCPX_HOME`): the trust
 * store, the era cache, OAuth tokens, and later history, sockets and imports.
 * Every path is relative to the home; every folder from the home down and
 * every file is checked with `lstat` on read and on write, so a symbolic link
 * planted there (say by a cloned repository's script) is refused, never
 * followed.
 */
export interface HomeFiles {
  /** The home folder itself. */
  readonly root: string;
  /** The absolute path of `relativePath` inside the home (no checks). */
  path(relativePath: string): string;
  /**
   * The file's text, or `undefined` when it does not exist. With `maxBytes`, a file
   * larger than that is refused (`HOME_ACCESS`) without being read: for files whose
   * size nothing else bounds, such as a cache of what servers said.
   */
  readText(relativePath: string, options?: { readonly maxBytes?: number }): Promise<string | undefined>;
  /** Replace the file atomically (temporary file in the same folder, then rename), mode 0600. */
  writeText(relativePath: string, text: string): Promise<void>;
  /**
   * Read-modify-write the file under its lock (`.<name>.mcpx-lock` beside it,
   * `file-lock.ts`): lock, read it afresh, `change` it, write it atomically,
   * unlock. Concurrent updates from any number of processes all land, one
   * after another; one that waited past `waitMs` for a live holder fails with
   * `FILE_LOCKED`. Resolves with the text the file now holds.
   */
  update(relativePath: string, change: FileChange, options?: FileLockOptions): Promise<string | undefined>;
  /** Create the folder (and those above it, up to the home) 0700; tighten existing ones to 0700. */
  ensureDir(relativePath?: string): Promise<string>;
  /** Delete the file; resolves `true` when there was one. */
  remove(relativePath: string): Promise<boolean>;
  /** The names in the folder (none when it does not exist). */
  list(relativePath: string): Promise<string[]>;
  /** Delete the folder and everything in it (links inside are removed, never followed); `true` when there was one. */
  removeTree(relativePath: string): Promise<boolean>;
}

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
// Absent on Windows, where 0 leaves the flag out (and links need privileges to create).
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO planted in place of a file would block a plain open for reading forever.
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const posix = process.platform !== 'win32';

/**
 * The safe files of the mcpx home at `root`.
 *
 * Long because the home's file operations share the path guard and the lock helpers in one closure.
 *
 * @example
 * const home = createHomeFiles(resolveMcpxHome(process.env, os.homedir()));
 * const text = await home.readText('trust.json');
 * await home.writeText('trust.json', JSON.stringify(store));
 */
export function createHomeFiles(root: string): HomeFiles {
  const parts = (relativePath: string): string[] => {
    const segments = relativePath.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
    if (segments.includes('..')) throw new Error(`not a path inside the mcpx home: ${relativePath}`);
    return segments;
  };

  /** The folders from the home down to the one holding `segments`' last element. */
  const foldersOf = (segments: readonly string[]): string[] => {
    const folders = [root];
    for (const segment of segments.slice(0, -1)) folders.push(join(folders.at(-1) ?? root, segment));
    return folders;
  };

  /** Checks each folder; with `create`, makes the missing ones. Resolves false when one is missing. */
  const walk = async (folders: readonly string[], create: boolean): Promise<boolean> => {
    for (const folder of folders) {
      const info = await lstatOrUndefined(folder);
      if (info === undefined) {
        if (!create) return false;
        // Folders above the home are the user's (MCPX_HOME may name a new path): made as needed.
        const recursive = folder === root;
        const made = await guard(folder, 'create the folder', () =>
          mkdir(folder, { mode: DIR_MODE, recursive }).then(
            () => true,
            (error: NodeJS.ErrnoException) => {
              if (error.code === 'EEXIST') return false;
              throw error;
            },
          ),
        );
        if (!made) {
          // Another mcpx made it at the same moment (many first calls at once): check it as found.
          const raced = await lstatOrUndefined(folder);
          if (raced === undefined) throw accessFailed(folder, 'create the folder', new Error('vanished'));
          checkFolder(folder, raced, root);
          continue;
        }
        // mkdir's mode passes through the umask; the folder must end up exactly 0700.
        if (posix) await guard(folder, 'set the permissions of', () => chmod(folder, DIR_MODE));
        continue;
      }
      checkFolder(folder, info, root);
      if (create && posix && (info.mode & 0o077) !== 0) {
        // Wider than 0700 (made by an older mcpx, a mkdir, a restore): tighten it, since a
        // folder others can enter or write exposes tokens and lets them plant files.
        await guard(folder, 'set the permissions of', () => chmod(folder, DIR_MODE));
      }
    }
    return true;
  };

  /** The file's path once its folders and the file itself passed the checks; undefined when absent. */
  const existingFile = async (relativePath: string): Promise<string | undefined> => {
    const segments = parts(relativePath);
    const file = join(root, ...segments);
    if (!(await walk(foldersOf(segments), false))) return undefined;
    const info = await lstatOrUndefined(file);
    if (info === undefined) return undefined;
    checkFile(file, info, root);
    return file;
  };

  const readText = async (
    relativePath: string,
    options: { readonly maxBytes?: number } = {},
  ): Promise<string | undefined> => {
    const file = await existingFile(relativePath);
    if (file === undefined) return undefined;
    let handle: FileHandle;
    try {
      handle = await open(file, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      // Swapped for a link between the lstat and the open.
      if (code === 'ELOOP') throw refused(file, root, 'a symbolic link');
      throw accessFailed(file, 'read', error);
    }
    try {
      const info = await handle.stat();
      checkFile(file, info, root);
      if (options.maxBytes !== undefined && info.size > options.maxBytes)
        throw tooLarge(file, options.maxBytes);
      return await handle.readFile('utf8');
    } catch (error) {
      throw error instanceof McpxError ? error : accessFailed(file, 'read', error);
    } finally {
      await handle.close();
    }
  };

  const writeText = async (relativePath: string, text: string): Promise<void> => {
    const segments = parts(relativePath);
    const file = join(root, ...segments);
    const folders = foldersOf(segments);
    await walk(folders, true);
    const existing = await lstatOrUndefined(file);
    if (existing !== undefined) checkFile(file, existing, root);
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      // O_EXCL + O_NOFOLLOW: a fresh file of our own, never one planted there, never through a link.
      const handle = await open(
        temp,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
        FILE_MODE,
      );
      try {
        if (posix) await handle.chmod(FILE_MODE);
        await handle.writeFile(text);
        await handle.sync();
      } finally {
        await handle.close();
      }
      // rename replaces a link rather than following it, but a link planted now is still refused.
      const now = await lstatOrUndefined(file);
      if (now !== undefined) checkFile(file, now, root);
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error instanceof McpxError ? error : accessFailed(file, 'write', error);
    }
  };

  return {
    root,
    path: (relativePath) => join(root, ...parts(relativePath)),
    readText,
    writeText,

    async update(relativePath, change, options) {
      const segments = parts(relativePath);
      const file = join(root, ...segments);
      await walk(foldersOf(segments), true);
      return updateUnderLock(
        file,
        { read: () => readText(relativePath), write: (text) => writeText(relativePath, text) },
        change,
        { ...options, failed: (error, lockPath) => accessFailed(lockPath, 'lock', error) },
      );
    },

    async ensureDir(relativePath = '') {
      const segments = parts(relativePath);
      const folder = join(root, ...segments);
      await walk([...foldersOf(segments), ...(segments.length ? [folder] : [])], true);
      return folder;
    },

    async remove(relativePath) {
      const file = await existingFile(relativePath);
      if (file === undefined) return false;
      await guard(file, 'remove', () => rm(file, { force: true }));
      return true;
    },

    async list(relativePath) {
      const segments = parts(relativePath);
      const folder = join(root, ...segments);
      if (!(await walk([...foldersOf(segments), ...(segments.length ? [folder] : [])], false))) return [];
      return guard(folder, 'list', () => readdir(folder));
    },

    async removeTree(relativePath) {
      const segments = parts(relativePath);
      if (segments.length === 0) throw new Error('refusing to remove the mcpx home itself');
      const folder = join(root, ...segments);
      if (!(await walk(foldersOf(segments), false))) return false;
      const info = await lstatOrUndefined(folder);
      if (info === undefined) return false;
      checkFolder(folder, info, root);
      await guard(folder, 'remove', () => rm(folder, { recursive: true, force: true }));
      return true;
    },
  };
}

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw accessFailed(path, 'inspect', error);
  }
}

function checkFolder(folder: string, info: Stats, root: string): void {
  if (info.isSymbolicLink()) throw refused(folder, root, 'a symbolic link');
  if (!info.isDirectory()) throw refused(folder, root, 'not a folder');
  checkOwner(folder, info, root);
}

function checkFile(file: string, info: Stats, root: string): void {
  if (info.isSymbolicLink()) throw refused(file, root, 'a symbolic link');
  if (!info.isFile()) throw refused(file, root, 'not a regular file');
  checkOwner(file, info, root);
}

function checkOwner(path: string, info: Stats, root: string): void {
  const uid = process.getuid?.();
  // root may own a user's files after a sudo; anyone else's file is not mcpx's own.
  if (uid !== undefined && info.uid !== uid && info.uid !== 0) {
    throw refused(path, root, `owned by another user (uid ${info.uid})`);
  }
}

function shown(path: string, root: string): string {
  const inside = relative(root, path);
  return inside === '' ? root : `${root}${sep}${inside}`;
}

function refused(path: string, root: string, what: string): McpxError {
  const isLink = what === 'a symbolic link';
  return new McpxError(
    ErrorCode.HomeUnsafe,
    `${shown(path, root)} is ${what}; mcpx ${isLink ? 'does not follow links' : 'uses only its own files and folders'} in its home`,
    {
      origin: { file: path },
      causes: [
        isLink
          ? 'something (a script, a cloned repository, another program) put a link where mcpx keeps its own state, which would make mcpx read or overwrite the file it points to'
          : 'something other than mcpx created this path',
      ],
      fixes: [`remove it (rm ${what === 'not a regular file' ? '-r ' : ''}'${path}') and run again`],
    },
  );
}

function accessFailed(path: string, action: string, error: unknown): McpxError {
  const code = (error as NodeJS.ErrnoException).code;
  return new McpxError(ErrorCode.HomeAccess, `cannot ${action} ${path}${code ? ` (${code})` : ''}`, {
    cause: error,
    origin: { file: path },
    fixes: [fixFor(code, path)],
  });
}

function tooLarge(path: string, maxBytes: number): McpxError {
  return new McpxError(ErrorCode.HomeAccess, `${path} is larger than mcpx reads (${maxBytes} bytes)`, {
    origin: { file: path },
    fixes: [`remove it (rm '${path}'); mcpx writes it again when it needs it`],
  });
}

function fixFor(code: string | undefined, path: string): string {
  if (code === 'ENOSPC') return 'free some disk space and run again';
  if (code === 'EROFS') return 'point MCPX_HOME at a writable folder and run again';
  if (code === 'EACCES' || code === 'EPERM')
    return `make it yours and private: sudo chown -R "$(id -un)" '${path}' && chmod -R u+rwX,go-rwx '${path}'`;
  return `check '${path}' (ls -ld '${path}') and run again`;
}

async function guard<T>(path: string, action: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw accessFailed(path, action, error);
  }
}
