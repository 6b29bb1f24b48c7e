import { readFileSync, statSync } from 'node:fs';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { MIN_STATE_KEY_BYTES } from '../../gateway/sealed-state.js';

const MAKE_KEY = (path: string) =>
  `make one: (umask 077; head -c 32 /dev/urandom > '${path}'), and give every instance the same file`;

/**
 * `mcpx serve --state-key-file`: the secret that seals 2026-07-28 request
 * states, read as raw bytes. Whoever holds it can forge a state for any
 * client, so a file other users could read is refused rather than used, as is
 * one too short to be a key.
 */
export function readStateKey(path: string, uid: number | undefined): Uint8Array {
  let info: ReturnType<typeof statSync>;
  let key: Buffer;
  try {
    info = statSync(path);
    key = readFileSync(path);
  } catch (error) {
    throw new McpxError(ErrorCode.StateKeyUnsafe, `cannot read the state key file ${path}`, {
      origin: { file: path },
      cause: error,
      causes: [(error as NodeJS.ErrnoException).code ?? String(error)],
      fixes: [MAKE_KEY(path)],
    });
  }
  const problem = !info.isFile()
    ? 'not a regular file'
    : uid !== undefined && info.uid !== uid
      ? `owned by another user (uid ${info.uid})`
      : uid !== undefined && (info.mode & 0o077) !== 0
        ? `readable by other users (mode ${(info.mode & 0o777).toString(8)})`
        : key.length < MIN_STATE_KEY_BYTES
          ? `${key.length} bytes long; a key needs at least ${MIN_STATE_KEY_BYTES} random bytes`
          : undefined;
  if (problem)
    throw new McpxError(ErrorCode.StateKeyUnsafe, `the state key file ${path} is ${problem}`, {
      origin: { file: path },
      causes: ['whoever reads the key can forge an input round for any client of the gateway'],
      fixes: [
        ...(problem.startsWith('readable') ? [`chmod 600 '${path}'`] : []),
        ...(problem.startsWith('owned')
          ? [`use a key file of your own: ${MAKE_KEY(path)}`]
          : [MAKE_KEY(path)]),
      ],
    });
  return key;
}
