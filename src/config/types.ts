/** The layers a server definition can come from, in increasing precedence. */
export type ConfigLayer = 'builtin' | 'global' | 'ancestor' | 'project' | 'explicit' | 'adhoc';

/** Where one server entry was defined. */
export interface ServerOrigin {
  readonly layer: ConfigLayer;
  /** Absolute path of the file; absent for builtin and ad-hoc servers. */
  readonly file?: string;
  /** 1-based line of the entry's key in that file. */
  readonly line?: number;
}

export type TransportKind = 'stdio' | 'http' | 'sse';

/** Which protocol era to speak: negotiate, force the 2025 handshake, or require 2026-07-28. */
export type ProtocolPin = 'auto' | 'legacy' | 'modern';

/**
 * One server after parsing, validation, normalization and interpolation:
 * everything the transport and client layers need, nothing format-specific.
 */
export interface ServerConfig {
  readonly name: string;
  readonly transport: TransportKind;
  /** stdio: the executable (first element of an array `command`). */
  readonly command?: string;
  readonly args: readonly string[];
  /** stdio: variables set for the server, on top of the safe default environment. */
  readonly env: Readonly<Record<string, string>>;
  /** stdio: names of host variables passed through unchanged. */
  readonly envPassthrough: readonly string[];
  readonly cwd?: string;
  readonly url?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly enabled: boolean;
  readonly failIfNoTools: boolean;
  readonly connectTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly httpMaxRetries?: number;
  readonly httpRetryBackoffMs?: number;
  /** Tool allow list (names); absent means all. */
  readonly allowTools?: readonly string[];
  readonly denyTools?: readonly string[];
  readonly protocol: ProtocolPin;
  /** stdio: largest accepted line from the server, in bytes. */
  readonly maxLineBytes?: number;
  readonly origin: ServerOrigin;
  /**
   * sha256 over the entry as written (command, args, env, url, headers, before
   * interpolation). Project and ancestor entries run only once the user has
   * approved this exact fingerprint.
   */
  readonly fingerprint: string;
  /** True when the entry comes from a file that may have arrived with a repository. */
  readonly requiresTrust: boolean;
}
