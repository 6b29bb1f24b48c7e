/**
 * Who can be asked. A front end hands the host this one thing: a person at a
 * terminal (the CLI, the shell, chat), a downstream MCP client (the gateway),
 * a library's callbacks, or nobody. Every question a repository or a server
 * raises goes through it — trust approval, `${input:…}` values, permission
 * consent, elicitation, sampling, roots, a mid-command sign-in — and a client
 * capability is declared to a server only when its answerer exists here.
 */
import type { ClientFeatures } from '../client/features.js';
import type { InputRequest, ServerConfig } from '../config/index.js';
import type { Approver } from '../permissions/index.js';

/** A repository's entry nobody approved yet, as it would be shown to whoever approves it. */
export interface TrustQuestion {
  readonly server: ServerConfig;
  /** What the entry runs and where it comes from, line by line, sanitized for a terminal. */
  readonly description: readonly string[];
}

/**
 * Who can be asked, handed to `createHost`: each question a repository or a server raises goes to
 * its member, and what is absent gets the safe default (skip, refuse, decline).
 */
export interface Ask {
  /**
   * Who answers, for messages that say why something was not asked
   * ("a person at this terminal", "the MCP client", "nobody: stdin is not a terminal").
   */
  readonly who: string;
  /**
   * May this repository's entry run? Yes starts it and records the approval in
   * the trust store (as `mcpx config trust` does). Absent, or failing (it throws or
   * rejects: a question put to a closed stdin), the entry is skipped with a notice.
   */
  readonly approveServer?: (question: TrustQuestion) => Promise<boolean>;
  /** A `${input:id}` value, asked at most once per host. Absent: read from the environment only. */
  readonly input?: (request: InputRequest) => Promise<string | undefined>;
  /** Permission questions: connection consent, per-call confirmation, changed definitions. */
  readonly approver?: Approver;
  /**
   * Roots, sampling and elicitation for one server. Each capability is
   * declared to the server only when its handler is present.
   */
  readonly features?: (server: ServerConfig) => ClientFeatures;
  /** Show a sign-in URL a server needs midway (the browser is never opened without it). */
  readonly presentSignIn?: (server: string, url: string) => Promise<void>;
}

/** Nobody can be asked: every question gets its safe default (skip, refuse, decline). */
export function nobody(why = 'nobody can be asked'): Ask {
  return { who: why };
}
