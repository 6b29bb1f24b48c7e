/** What the audit log records of one tool call, and where it goes. */

/** The front end a call came through. */
export type AuditClient = 'cli' | 'chat' | 'gateway' | 'library' | 'console';

/** The MCP App a call came from: its `ui://` page, and the tool it was opened for (when one was). */
export interface AuditApp {
  readonly uri: string;
  readonly tool?: string;
}

/** Who asked for a call. */
export interface AuditCaller {
  /**
   * The front end: a person's own `mcpx call` or shell line (`cli`), chat, the gateway, a program,
   * the console's page (`console`: a call from its forms, or an App's own call, with `app`).
   */
  readonly client: AuditClient;
  /** For an MCP App's own call (the console's Apps): which App made it. */
  readonly app?: AuditApp;
  /** The gateway's downstream client, as it named itself in `initialize` (or the request's `_meta`). */
  readonly clientInfo?: { readonly name: string; readonly version?: string };
  /** The gateway's session (a client's `Mcp-Session-Id`, a stdio connection), for telling clients apart. */
  readonly session?: string;
  /** The host's profile (`--profile`, `HostOptions.profile`), when it runs one. */
  readonly profile?: string;
}

/** Who answered a permission question: a person at a terminal, a downstream client's person (form elicitation), a program's callback. */
export type AuditAnswerer = 'terminal' | 'client' | 'program';

/**
 * How the permission engine decided a call.
 * - `allowed`: without asking, by the `level` (`yolo`), a `rule` (`--allow`, `/mcp connect --allow-all`),
 *   a believed `read-only` annotation, an earlier answer in this `session`, a caller's own `guard`,
 *   or because the `person` who decides made the call themselves (`mcpx call`, the shell's `@server tool`).
 * - `confirmed`: a question was put (`connect`, `call`, `changed` definition) and answered yes `by` someone.
 * - `denied`: by a `rule` (level, lists, exclusions; `reason` says which), an earlier answer in this
 *   `session`, the one who was asked, or `nobody` (nobody could be asked).
 */
export type AuditDecision =
  | {
      readonly result: 'allowed';
      readonly by: 'level' | 'rule' | 'read-only' | 'session' | 'guard' | 'person';
    }
  | {
      readonly result: 'confirmed';
      readonly by: AuditAnswerer;
      readonly question: 'connect' | 'call' | 'changed';
    }
  | {
      readonly result: 'denied';
      readonly by: 'rule' | 'session' | 'nobody' | AuditAnswerer;
      readonly reason: string;
    };

/**
 * How a call ended: `ok`; `tool-error` (the tool said `isError`); `protocol-error` (a JSON-RPC
 * error, with its code); `error` (mcpx's own: a crash, a timeout, a server that cannot be
 * reached, with its code); `refused` (the permission engine said no, or nobody answered).
 */
export type AuditOutcome = 'ok' | 'tool-error' | 'protocol-error' | 'error' | 'refused';

/** One tool call, as every audit sink receives it. */
export interface AuditRecord extends AuditCaller {
  /** When the call was asked for (ISO 8601, UTC). */
  readonly time: string;
  /** The upstream server; absent when the name matched no server's tool. */
  readonly server?: string;
  /** The tool's name on that server (the public name when it matched none). */
  readonly tool: string;
  /** Absent when the call failed before it was decided (an unknown tool, invalid arguments). */
  readonly decision?: AuditDecision;
  readonly durationMs: number;
  readonly outcome: AuditOutcome;
  /** For `protocol-error` and `error`: the JSON-RPC code or mcpx's error code, and the first words of the message. */
  readonly error?: { readonly code?: number | string; readonly message: string };
  /** The names of the call's arguments. */
  readonly argumentKeys: readonly string[];
  /**
   * The arguments with every value of a key that names a secret, and every value shaped like a
   * token, masked (`‹masked›`). A sink writes them only when asked to; the file log by default does not.
   */
  readonly arguments: Readonly<Record<string, unknown>>;
}

/**
 * Where audit records go: the file log, `mcpx serve --access-log`, a program's own. `write` is
 * called once per call, after it ended, and must not throw or wait (queue, then write behind).
 */
export interface AuditSink {
  write(record: AuditRecord): void;
  /**
   * A request that ended in an `input_required` round while its call goes on in another request
   * (a 2026-07-28 client over HTTP): not a call, so not `write`n; a log of requests (the access
   * log) records it. Its `outcome` is `ok`.
   */
  round?(record: AuditRecord): void;
  /** Everything written so far reaches its destination. */
  close?(): Promise<void>;
}
