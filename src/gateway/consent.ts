import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClientCapabilities, InputRequest, Tool } from '@modelcontextprotocol/server';
import type { AuditDecision } from '../audit/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import type {
  Approver,
  CallDecision,
  ConnectDecision,
  PermissionAnswers,
  PermissionGuard,
} from '../permissions/index.js';
import { forModel, forTerminal } from '../text/index.js';
import { describe } from './upstream-error.js';

/**
 * The key the consent question is asked under in a 2026-07-28 client's
 * `input_required` round. It is asked before the upstream is called, so no
 * upstream question shares its round.
 */
export const CONSENT_INPUT_KEY = 'mcpx-consent';

/** Characters of a tool description, and of the arguments, a question shows. */
const SHOWN_CHARS = 160;
/** Tool names a connection question lists before "and N more". */
const SHOWN_TOOLS = 12;

/** Asks the calling client one question (the gateway's `#ask`, bound to the call being decided). */
export type Elicit = (request: InputRequest) => Promise<unknown>;

/** Whether a client declared form elicitation (an empty `elicitation` object means form, as before URL mode). */
export function canElicitForm(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** One call to decide, with what the policy needs that the gateway knows. */
export interface ConsentCall {
  readonly server: string;
  readonly tool: Tool;
  readonly args: Readonly<Record<string, unknown>>;
  /** Every tool the server offers now: allowing the server approves these definitions. */
  readonly serverTools: readonly Tool[];
  /** The gateway's guard (the host's): this session's own is made from it, under the same policy. */
  readonly guard: PermissionGuard;
  /** Told how the call was decided, for the audit log. */
  readonly decided?: (decision: AuditDecision) => void;
}

/**
 * A question to carry to the client in a sealed `input_required` round (a 2026-07-28 client over
 * HTTP, whose retry may reach another instance): thrown by {@link replaying} once its answers run out.
 */
export class AskLater extends Error {
  readonly request: InputRequest;
  readonly answers: readonly unknown[];
  constructor(request: InputRequest, answers: readonly unknown[]) {
    super('mcpx gateway: this question is asked in the next round');
    this.request = request;
    this.answers = answers;
  }
}

/**
 * Asks nobody now: the client's answers from earlier rounds of this very call, in the order the
 * questions came; the next question is thrown as {@link AskLater}, to be asked in a new round.
 */
export function replaying(answers: readonly unknown[]): Elicit {
  let next = 0;
  return async (request) => {
    if (next < answers.length) return answers[next++];
    throw new AskLater(request, answers);
  };
}

/** The person closed the form or declined it: this call is refused, nothing is remembered. */
class NotAnswered extends Error {}

/**
 * The consent one downstream session's person gave (seed 004): its own
 * permission guard, whose approver asks through the client's form elicitation.
 * One per client session (`createSessionServer`), so one client's "allow all"
 * never lets another client's calls through, and the answers end with the session.
 */
export class ClientConsent {
  #guard: PermissionGuard | undefined;
  /** The call whose client is asked: concurrent calls of one session each ask through their own. */
  readonly #asking = new AsyncLocalStorage<Elicit>();
  readonly #kept: KeptAnswers | undefined;

  /** `kept`: a client with no session (2026-07-28 over HTTP) starts from the answers it gave before. */
  constructor(kept?: KeptAnswers) {
    this.#kept = kept;
  }

  /**
   * Ask the person, through `elicit`, what the policy would put to them about
   * this call. Resolves undefined when the call may go ahead, else the
   * refusal to return in its place.
   */
  async decide(request: ConsentCall, elicit: Elicit): Promise<string | undefined> {
    // Read from the fleet's store (a promise) only there: in memory it stays synchronous.
    let kept = this.#guard ? undefined : this.#kept?.answers();
    if (kept instanceof Promise) kept = await kept;
    const guard = this.#guardFor(request, kept);
    const { server, tool, args } = request;
    const decided = request.decided ?? (() => {});
    return this.#asking.run(elicit, async () => {
      try {
        // Asked up front with every tool, so allowing the server approves the definitions shown.
        const connecting = guard.verdict({ server, tool }).kind === 'ask-connect';
        if (connecting) await guard.consent({ server, tools: request.serverTools });
        await guard.check(
          { server, tool, args },
          {
            // The connect question just answered is what let the call through, not an older answer.
            onDecision: (d) =>
              decided(
                !connecting || d.by !== 'session'
                  ? d
                  : d.result === 'allowed'
                    ? { result: 'confirmed', by: 'client', question: 'connect' }
                    : { ...d, by: 'client' },
              ),
          },
        );
        const keeping = this.#kept?.keep(guard.state);
        if (keeping) await keeping;
        return undefined;
      } catch (error) {
        // A question left for the next round is no answer yet: the retry replays this call's.
        const keeping = error instanceof AskLater ? undefined : this.#kept?.keep(guard.state);
        if (keeping) await keeping;
        if (error instanceof NotAnswered) {
          decided({ result: 'denied', by: 'client', reason: error.message });
          return `mcpx refused '${forModel(tool.name)}' of '${forModel(server)}': ${error.message}; call it again to be asked again`;
        }
        if (error instanceof McpxError && error.code === ErrorCode.PermissionDenied)
          return `mcpx refused: ${describe(error)}`;
        throw error;
      }
    });
  }

  #guardFor(request: ConsentCall, kept: PermissionAnswers | undefined): PermissionGuard {
    this.#guard ??= request.guard.withApprover(this.#approver(), kept);
    return this.#guard;
  }

  #approver(): Approver {
    const choose = async <T extends string>(message: string, choices: readonly Choice<T>[]): Promise<T> => {
      const elicit = this.#asking.getStore();
      if (!elicit) throw new NotAnswered('nobody could be asked');
      // Why the person may be asked again what they answered before (the fleet's store was down).
      const unread = this.#kept?.unread?.();
      const asked = unread ? `${message}\n(${unread})` : message;
      return answerOf(await elicit(consentForm(asked, choices)), choices);
    };
    return {
      answerer: 'client',
      askConnect: (q) =>
        choose<ConnectDecision>(
          `mcpx: allow the MCP server '${show(q.server)}' to be used in this session?\n` +
            `Tools: ${toolNames(q.tools)}`,
          [
            { const: 'allow-all', title: 'Allow all tools of this server (this session)' },
            { const: 'confirm-each', title: 'Confirm each call' },
            { const: 'deny', title: 'Deny this server (this session)' },
          ],
        ),
      askCall: (q) =>
        choose<CallDecision>(`mcpx: allow ${describeCall(q.server, q.tool, q.args)}?`, [
          { const: 'once', title: 'Allow once' },
          { const: 'always', title: 'Allow always (this server, this session)' },
          { const: 'deny', title: 'Deny' },
        ]),
      askChanged: (q) =>
        choose<CallDecision>(
          `mcpx: the definition of '${show(q.tool.name)}' of '${show(q.server)}' changed since it was ` +
            `approved (${shorten(q.changes.join('; '))}). Allow ${describeCall(q.server, q.tool, q.args)}?`,
          [
            { const: 'once', title: 'Allow the new definition once' },
            { const: 'always', title: 'Approve the new definition' },
            { const: 'deny', title: 'Deny' },
          ],
        ),
    };
  }
}

interface Choice<T extends string> {
  readonly const: T;
  readonly title: string;
}

/** An MCP form elicitation with one single-select field, `decision`. */
function consentForm(message: string, choices: readonly Choice<string>[]): InputRequest {
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message,
      requestedSchema: {
        type: 'object',
        properties: {
          decision: { type: 'string', title: 'Your answer', oneOf: choices.map((c) => ({ ...c })) },
        },
        required: ['decision'],
      },
    },
  } as InputRequest;
}

/** The person's choice, or NotAnswered for a declined or cancelled form, or an answer not offered. */
function answerOf<T extends string>(result: unknown, choices: readonly Choice<T>[]): T {
  const { action, content } = (result ?? {}) as { action?: unknown; content?: { decision?: unknown } };
  if (action !== 'accept')
    return notAnswered(action === 'decline' ? 'the person declined' : 'the question was cancelled');
  const chosen = choices.find((c) => c.const === content?.decision);
  if (!chosen) return notAnswered('the answer was none of those offered');
  return chosen.const;
}

function notAnswered(why: string): never {
  throw new NotAnswered(why);
}

// Names and descriptions are the server's words, shown to a person: hidden characters revealed.
const show = (text: string) => forTerminal(text).replace(/\s+/g, ' ').trim();

function shorten(text: string): string {
  return text.length <= SHOWN_CHARS ? text : `${text.slice(0, SHOWN_CHARS)}…`;
}

function toolNames(tools: readonly Tool[]): string {
  const names = tools.slice(0, SHOWN_TOOLS).map((t) => show(t.name));
  const more = tools.length - names.length;
  return (names.join(', ') || '(none)') + (more > 0 ? ` and ${more} more` : '');
}

function describeCall(server: string, tool: Tool, args: Readonly<Record<string, unknown>>): string {
  const about = tool.description ? ` (${shorten(show(tool.description))})` : '';
  return (
    `'${show(tool.name)}' of '${show(server)}'${about}\n` +
    `Arguments: ${shorten(show(JSON.stringify(args) ?? '{}'))}`
  );
}

/**
 * One client's answers in a {@link Consents}: synchronous in this process's memory, promises in
 * the fleet's store (`fleet/fleet-consent.ts`), which never reject (a store that fails is reported
 * there, and an answer that cannot be read is not known: the person is asked again).
 */
export interface KeptAnswers {
  answers(): PermissionAnswers | undefined | Promise<PermissionAnswers | undefined>;
  keep(answers: PermissionAnswers): void | Promise<void>;
  /** Why earlier answers could not be read, once `answers()` found so: said with the question. */
  unread?(): string | undefined;
}

/** {@link KeptAnswers} in this process's memory: never a promise. */
export interface KeptInMemory extends KeptAnswers {
  answers(): PermissionAnswers | undefined;
  keep(answers: PermissionAnswers): void;
}

/** Where the answers of clients without a session are kept, under each client's identity. */
export interface Consents {
  of(identity: string): KeptAnswers;
}

/** How long a client's answers are kept after its last call, and for how many clients at most. */
export const KEPT_IDLE_MS = 30 * 60_000;
export const KEPT_CLIENTS = 1_000;

/**
 * The consent of clients that have no session: a 2026-07-28 client over HTTP sends every call as a
 * request of its own, so the answers its person gave ("allow all", "always", "deny") are kept here,
 * under the client's identity (its credentials, hashed, and its name and version), and each request
 * starts from them. They are answers of this gateway process only (a fleet sharing a store keeps
 * them there instead: `fleet/fleet-consent.ts`), and forgotten after 30 minutes without a call, as a
 * session would end.
 * A call's answers are kept when its consent is settled, not between its rounds: each round
 * replays the answers given so far, against the same starting point.
 */
export class ConsentMemory implements Consents {
  readonly #clients = new Map<string, { answers: PermissionAnswers; used: number }>();
  readonly #idleMs: number;
  readonly #max: number;

  constructor(idleMs = KEPT_IDLE_MS, max = KEPT_CLIENTS) {
    this.#idleMs = idleMs;
    this.#max = max;
  }

  /** The answers of the client `identity` names, to start its next request's consent from. */
  of(identity: string): KeptInMemory {
    return {
      answers: () => {
        this.#forgetIdle();
        return this.#clients.get(identity)?.answers;
      },
      keep: (answers) => {
        const copy = { connect: new Map(answers.connect), approved: new Map(answers.approved) };
        // Re-inserted, so the Map's order is least recently used first.
        this.#clients.delete(identity);
        this.#clients.set(identity, { answers: copy, used: Date.now() });
        for (const oldest of this.#clients.keys()) {
          if (this.#clients.size <= this.#max) break;
          this.#clients.delete(oldest);
        }
      },
    };
  }

  #forgetIdle(): void {
    const cutoff = Date.now() - this.#idleMs;
    for (const [identity, kept] of this.#clients) {
      if (kept.used >= cutoff) break;
      this.#clients.delete(identity);
    }
  }
}
