import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ContentBlock } from '@modelcontextprotocol/client';
import { ErrorCode, McpxError } from '../../errors/index.js';

/** One block written to a file by `call --save`. */
export interface SavedBlock {
  /** Position of the block in the result's `content`. */
  readonly index: number;
  readonly kind: 'image' | 'audio' | 'resource';
  /** The server's MIME type, as it said it (untrusted: sanitize before showing). */
  readonly mimeType: string | undefined;
  readonly path: string;
  readonly bytes: number;
}

// Only these MIME types choose an extension; anything else (or anything a server made up) is `.bin`.
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'image/bmp': 'bmp',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/ogg': 'ogg',
  'audio/webm': 'webm',
  'audio/flac': 'flac',
  'application/pdf': 'pdf',
  'application/zip': 'zip',
  'application/gzip': 'gz',
  'application/json': 'json',
  'text/plain': 'txt',
};

/** Most numbered names tried for one block before giving up (a folder full of earlier runs). */
const MAX_COUNTER = 10_000;

/**
 * `mcpx call --save DIR`: write each image, audio and embedded blob of a
 * result to its own file in `dir` (created if missing). Names are made here,
 * never taken from the server: `<tool>-<n>.<ext>`, with the extension from a
 * fixed list of MIME types; an existing file is never overwritten (`-1`, `-2`,
 * … are tried, each with an exclusive create).
 *
 * @throws McpxError(Usage) when `dir` exists and is not a directory.
 */
export async function saveBinaryContent(
  dir: string,
  tool: string,
  content: readonly ContentBlock[],
): Promise<SavedBlock[]> {
  const target = resolve(dir);
  const existing = await stat(target).catch(() => undefined);
  if (existing && !existing.isDirectory()) {
    throw new McpxError(ErrorCode.Usage, `--save: ${target} is not a directory`, {
      fixes: ['give a directory (it is created when missing), e.g. --save ./out'],
    });
  }
  await mkdir(target, { recursive: true });
  const stem = tool.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64) || 'content';
  const saved: SavedBlock[] = [];
  for (const [index, block] of content.entries()) {
    const found = binaryOf(block);
    if (!found) continue;
    const bytes = Buffer.from(found.base64, 'base64');
    const ext = (found.mimeType && EXTENSIONS[found.mimeType.toLowerCase()]) ?? 'bin';
    const path = await writeFresh(target, `${stem}-${index + 1}`, ext, bytes);
    saved.push({ index, kind: found.kind, mimeType: found.mimeType, path, bytes: bytes.length });
  }
  return saved;
}

function binaryOf(
  block: ContentBlock,
): { kind: SavedBlock['kind']; base64: string; mimeType: string | undefined } | undefined {
  if (block.type === 'image' || block.type === 'audio')
    return { kind: block.type, base64: block.data, mimeType: block.mimeType };
  if (block.type === 'resource' && 'blob' in block.resource && typeof block.resource.blob === 'string')
    return { kind: 'resource', base64: block.resource.blob, mimeType: block.resource.mimeType };
  return undefined;
}

/** Create `name.ext`, else `name-1.ext`, `name-2.ext`…: the exclusive flag means no race can overwrite either. */
async function writeFresh(dir: string, name: string, ext: string, bytes: Buffer): Promise<string> {
  for (let n = 0; n < MAX_COUNTER; n++) {
    const path = join(dir, `${name}${n === 0 ? '' : `-${n}`}.${ext}`);
    try {
      await writeFile(path, bytes, { flag: 'wx' });
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw cannotWrite(path, error);
    }
  }
  throw new McpxError(
    ErrorCode.Usage,
    `--save: ${join(dir, name)}.${ext} and ${MAX_COUNTER} numbered names exist`,
    {
      fixes: ['save into an empty directory, e.g. --save ./out-2'],
    },
  );
}

function cannotWrite(path: string, error: unknown): McpxError {
  const code = (error as NodeJS.ErrnoException).code;
  return new McpxError(
    ErrorCode.Usage,
    `--save: cannot write ${path}: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : String((error as Error).message)}`,
    { cause: error, fixes: ['save into a directory you can write to, e.g. --save ./out'] },
  );
}
