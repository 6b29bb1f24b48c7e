import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  OAuthClientInformationMixed,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import { ErrorCode, McpxError } from '../errors/index.js';

/** What mcpx keeps for one server's sign-in. Never logged, never put in a URL or an error. */
export interface StoredCredentials {
  readonly serverUrl: string;
  tokens?: OAuthTokens & { issuer?: string; obtained_at?: number };
  clientInformation?: OAuthClientInformationMixed & { issuer?: string };
  codeVerifier?: string;
  state?: string;
  discoveryState?: OAuthDiscoveryState;
  /** Client credentials: the authorization server they were first sent to, and the only one they go to. */
  issuer?: string;
}

/**
 * Tokens under `<mcpx home>/oauth/`: the directory 0700, one file per server
 * (keyed by its name and URL, so a token for one server never reaches
 * another), written atomically with mode 0600, and a pre-planted symlink in
 * place of a file or the directory is refused rather than followed.
 */
export class TokenStore {
  readonly directory: string;

  constructor(home: string) {
    this.directory = join(home, 'oauth');
  }

  fileFor(serverName: string, serverUrl: string): string {
    const key = createHash('sha256').update(`${serverName}\0${serverUrl}`).digest('hex').slice(0, 16);
    const safeName = serverName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 40);
    return join(this.directory, `${safeName}-${key}.json`);
  }

  async load(serverName: string, serverUrl: string): Promise<StoredCredentials | undefined> {
    const file = this.fileFor(serverName, serverUrl);
    await this.#refuseSymlink(file);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const stored = JSON.parse(text) as StoredCredentials;
    return stored.serverUrl === serverUrl ? stored : undefined;
  }

  async save(serverName: string, credentials: StoredCredentials): Promise<void> {
    await this.#ensureDirectory();
    const file = this.fileFor(serverName, credentials.serverUrl);
    await this.#refuseSymlink(file);
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    // `wx` + O_NOFOLLOW: a fresh file, never one someone planted, never through a link.
    const handle = await open(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      await handle.writeFile(`${JSON.stringify(credentials, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  }

  /** Forget a server's sign-in. Resolves true when there was one. */
  async remove(serverName: string, serverUrl: string): Promise<boolean> {
    const file = this.fileFor(serverName, serverUrl);
    await this.#refuseSymlink(file);
    try {
      await lstat(file);
    } catch {
      return false;
    }
    await rm(file, { force: true });
    return true;
  }

  async #ensureDirectory(): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    const info = await lstat(this.directory);
    if (info.isSymbolicLink() || !info.isDirectory()) throw planted(this.directory);
    if ((info.mode & 0o777) !== 0o700) await chmod(this.directory, 0o700);
  }

  async #refuseSymlink(path: string): Promise<void> {
    for (const candidate of [this.directory, path]) {
      try {
        if ((await lstat(candidate)).isSymbolicLink()) throw planted(candidate);
      } catch (error) {
        if (error instanceof McpxError) throw error;
      }
    }
  }
}

function planted(path: string): McpxError {
  return new McpxError(
    ErrorCode.AuthRequired,
    `refusing to use ${path}: it is a symbolic link, not mcpx's own token file`,
    {
      fixes: [
        `remove ${path} (someone or something put a link there), then sign in again with \`mcpx auth <server>\``,
      ],
    },
  );
}
