import { createHash } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import type {
  OAuthClientInformationMixed,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import { createHomeFiles, type HomeFiles, lockFileOf } from '../home/index.js';
import type { StoredDpopKey } from './dpop.js';

const OAUTH_DIR = 'oauth';

/** What mcpx keeps for one server's sign-in. Never logged, never put in a URL or an error. */
export interface StoredCredentials {
  readonly serverUrl: string;
  tokens?: OAuthTokens & { issuer?: string; obtained_at?: number };
  clientInformation?: OAuthClientInformationMixed & { issuer?: string };
  /** Left by older mcpx versions; a sign-in now keeps its verifier and state in memory (`McpxOAuthProvider`). */
  codeVerifier?: string;
  state?: string;
  discoveryState?: OAuthDiscoveryState;
  /** Client credentials: the authorization server they were first sent to, and the only one they go to. */
  issuer?: string;
  /**
   * Why the sign-in ended, when the authorization server refused to renew it: recorded once by
   * the process that asked, so every other one says why without asking again. A sign-in clears it.
   */
  ended?: { readonly at: number; readonly reason: string };
  /** `"dpop": true`: the key the tokens are bound to (RFC 9449), as secret as they are. */
  dpopKey?: StoredDpopKey;
}

/**
 * Tokens under `<mcpx home>/oauth/`: the folder 0700, one file per server
 * (keyed by its name and URL, so a token for one server never reaches
 * another), written atomically with mode 0600. A symbolic link planted in
 * place of a file, the folder or the home is refused (`HOME_UNSAFE`), never
 * followed (the home's safe files, `src/home/`).
 */
export class TokenStore {
  readonly directory: string;
  readonly #files: HomeFiles;

  constructor(home: string) {
    this.#files = createHomeFiles(home);
    this.directory = this.#files.path(OAUTH_DIR);
  }

  fileFor(serverName: string, serverUrl: string): string {
    return this.#files.path(this.#relative(serverName, serverUrl));
  }

  /**
   * The lock held while a server's sign-in is renewed (one refresh at a time, across processes):
   * beside the token file, apart from the file's own lock, which every write takes for a moment.
   */
  refreshLockFor(serverName: string, serverUrl: string): string {
    return lockFileOf(`${this.fileFor(serverName, serverUrl)}.refresh`);
  }

  /**
   * Which version of the server's file is on disk (inode, size and change time), or undefined
   * when there is none: a stat, so a long-running process can notice another one's write at
   * every request without reading the file.
   */
  async version(serverName: string, serverUrl: string): Promise<string | undefined> {
    try {
      const info = await lstat(this.fileFor(serverName, serverUrl), { bigint: true });
      return `${info.ino}:${info.size}:${info.ctimeNs}`;
    } catch {
      return undefined;
    }
  }

  async load(serverName: string, serverUrl: string): Promise<StoredCredentials | undefined> {
    const text = await this.#files.readText(this.#relative(serverName, serverUrl));
    if (text === undefined) return undefined;
    const stored = JSON.parse(text) as StoredCredentials;
    return stored.serverUrl === serverUrl ? stored : undefined;
  }

  async save(serverName: string, credentials: StoredCredentials): Promise<void> {
    await this.#files.writeText(
      this.#relative(serverName, credentials.serverUrl),
      `${JSON.stringify(credentials, null, 2)}\n`,
    );
  }

  /**
   * Change a server's sign-in under its file's lock, from what the file holds now
   * (not from what a caller read earlier): two providers of one server — a running
   * connection and the sign-in it started — each change their own fields without
   * putting back the other's old ones. Resolves with what the file now holds.
   */
  async update(
    serverName: string,
    serverUrl: string,
    change: (current: StoredCredentials) => StoredCredentials,
  ): Promise<StoredCredentials> {
    const text = await this.#files.update(this.#relative(serverName, serverUrl), (currentText) => {
      const parsed = currentText === undefined ? undefined : (JSON.parse(currentText) as StoredCredentials);
      const current = parsed?.serverUrl === serverUrl ? parsed : { serverUrl };
      return `${JSON.stringify(change(current), null, 2)}\n`;
    });
    return JSON.parse(text ?? '{}') as StoredCredentials;
  }

  /** Forget a server's sign-in. Resolves true when there was one. */
  async remove(serverName: string, serverUrl: string): Promise<boolean> {
    return this.#files.remove(this.#relative(serverName, serverUrl));
  }

  #relative(serverName: string, serverUrl: string): string {
    const key = createHash('sha256').update(`${serverName}\0${serverUrl}`).digest('hex').slice(0, 16);
    const safeName = serverName.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 40);
    return `${OAUTH_DIR}/${safeName}-${key}.json`;
  }
}
