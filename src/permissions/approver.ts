import type { Tool } from '@modelcontextprotocol/client';
import type { AuditAnswerer } from '../audit/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import {
  type Choice,
  forTerminal,
  isTerminal,
  type SafeText,
  say,
  select,
  Terminal,
  type TerminalStreams,
} from '../text/index.js';
import { type ConnectToolsView, describeConnectTools } from './connect-question.js';
import type { CallDecision, ConfirmHint, ConnectDecision } from './policy.js';
import type { PermissionLevel } from './types.js';

/** "May the agent use this server?", asked once per server and session, before its tools reach the model. */
export interface ConnectQuestion {
  readonly agentId?: string;
  readonly server: string;
  /** Where the server is configured (`file:line (layer)`), when known. */
  readonly origin?: string;
  /** Every tool the server offers now: approving the server approves these definitions. */
  readonly tools: readonly Tool[];
}

/** "May the agent make this call?" */
export interface CallQuestion {
  readonly agentId?: string;
  readonly server: string;
  readonly tool: Tool;
  readonly args: Readonly<Record<string, unknown>>;
}

/** "May the agent call this tool, whose definition changed since it was approved?" */
export interface ChangedQuestion extends CallQuestion {
  /** What differs from the definition approved before, in words. */
  readonly changes: readonly string[];
}

/**
 * Whoever answers permission questions: a person at a terminal, a script in
 * tests, or a library user's callback. The policy decides when to ask.
 */
export interface Approver {
  /**
   * Who answers, for the audit log: a person at this terminal, a downstream client's person
   * (form elicitation), or a program (the default: a library's callback, a script).
   */
  readonly answerer?: AuditAnswerer;
  askConnect(question: ConnectQuestion, options?: QuestionOptions): Promise<ConnectDecision>;
  askCall(question: CallQuestion, options?: QuestionOptions): Promise<CallDecision>;
  /** A definition changed since it was approved; `once`/`always` approve the new one. */
  askChanged(question: ChangedQuestion, options?: QuestionOptions): Promise<CallDecision>;
}

/** How a question is asked. */
export interface QuestionOptions {
  /**
   * Aborted when the question no longer needs an answer (the call that asked was cancelled,
   * the command ended): an approver that is still asking stops, with a cancellation.
   */
  readonly signal?: AbortSignal;
}

/** Answers from a list, in order (tests, and scripted library use). Runs out → deny. */
export function scriptedApprover(answers: {
  readonly connect?: readonly ConnectDecision[];
  readonly call?: readonly CallDecision[];
  readonly changed?: readonly CallDecision[];
}): Approver & {
  readonly asked: { kind: 'connect' | 'call' | 'changed'; question: ConnectQuestion | CallQuestion }[];
} {
  const queues = {
    connect: [...(answers.connect ?? [])],
    call: [...(answers.call ?? [])],
    changed: [...(answers.changed ?? [])],
  };
  const asked: { kind: 'connect' | 'call' | 'changed'; question: ConnectQuestion | CallQuestion }[] = [];
  const answer = <K extends keyof typeof queues>(kind: K, question: ConnectQuestion | CallQuestion) => {
    asked.push({ kind, question });
    return Promise.resolve((queues[kind].shift() ?? 'deny') as (typeof queues)[K][number]);
  };
  return {
    asked,
    askConnect: (question) => answer('connect', question),
    askCall: (question) => answer('call', question),
    askChanged: (question) => answer('changed', question),
  };
}

/** Nobody can be asked (no terminal): every question is answered no, and `reason` says why. */
export function denyingApprover(reason: string): Approver & { readonly reason: string } {
  return {
    reason,
    askConnect: async () => 'deny',
    askCall: async () => 'deny',
    askChanged: async () => 'deny',
  };
}

/** A question nobody is there to answer, for the refusal said in its place. */
export interface UnaskedQuestion {
  readonly server: string;
  readonly tool: Tool;
  readonly level: PermissionLevel;
  /** What a person would have been asked: to use the server, this call, or a changed definition. */
  readonly kind: 'connect' | 'call' | 'changed';
  /** Set when the tool's believed annotations put every call of it to a person, even after allow-all. */
  readonly because?: ConfirmHint;
  /** For `changed`: what changed since the definition was approved or ran unasked, in words. */
  readonly changes?: readonly string[];
}

/**
 * An approver with nobody behind it whose refusal is its whole answer: what a
 * front end that cannot wait on a person (the gateway) returns instead of the
 * call, in that front end's words — how to allow it there.
 */
export interface NobodyApprover extends Approver {
  refusal(question: UnaskedQuestion): string;
}

/**
 * Nobody can be asked, and `refusal` says how to allow what would have been
 * asked (`PermissionGuard.refusal` returns it, synchronously; `check()` rejects
 * with it).
 *
 * @example
 * nobodyApprover(({ server }) => `restart with --allow ${server}`)
 */
export function nobodyApprover(refusal: (question: UnaskedQuestion) => string): NobodyApprover {
  return {
    refusal,
    askConnect: async () => 'deny',
    askCall: async () => 'deny',
    askChanged: async () => 'deny',
  };
}

/** Whether `approver` answers with a refusal of its own (see {@link nobodyApprover}). */
export function isNobodyApprover(approver: Approver): approver is NobodyApprover {
  return typeof (approver as Partial<NobodyApprover>).refusal === 'function';
}

/**
 * Whether someone answers this approver's questions: not a {@link nobodyApprover}, nor one
 * that refuses every question with a `reason` ({@link denyingApprover}, a command without a
 * terminal). Only then is a server's consent asked up front, before an agent gets its tools;
 * with nobody to ask, each call is refused in words the model is told.
 */
export function asksSomeone(approver: Approver): boolean {
  return !isNobodyApprover(approver) && !('reason' in approver);
}

const show = forTerminal;

/** How a call is shown to a person: server, tool, description with hidden characters revealed, arguments. */
export function describeQuestion(question: CallQuestion & { changes?: readonly string[] }): SafeText {
  const lines = [`server: ${show(question.server)}`, `tool:   ${show(question.tool.name)}`];
  if (question.tool.description) lines.push(`about:  ${show(question.tool.description)}`);
  lines.push(`args:   ${show(JSON.stringify(question.args))}`);
  for (const change of question.changes ?? []) lines.push(`change: ${show(change)}`);
  return show(lines.join('\n'));
}

/**
 * How a server is shown when an agent first wants it: where it is configured,
 * every tool it offers with its description, and the fingerprint the approval
 * covers. Long descriptions are folded to a line unless `full`.
 */
export function describeConnectQuestion(question: ConnectQuestion, full = false): ConnectToolsView {
  const view = describeConnectTools(question.tools, full);
  const origin = question.origin ? `  configured in ${show(question.origin)}\n` : '';
  return { text: `${origin}${view.text}`, folded: view.folded };
}

/**
 * Asks on a terminal with arrow-key menus (the prompts of `text/`, which draw
 * safe text only). The CLI builds one on its own terminal; a program may on its streams.
 */
export function terminalApprover(on: Terminal | TerminalStreams): Approver {
  const terminal = isTerminal(on) ? on : new Terminal(on);
  const ask = async <T extends string>(
    message: SafeText,
    choices: Choice<T>[],
    signal: AbortSignal | undefined,
  ): Promise<T> => {
    try {
      return await select<T>(terminal, { message, choices }, signal);
    } catch (error) {
      throw promptFailure(error);
    }
  };
  return {
    answerer: 'terminal',
    async askConnect(q, { signal } = {}) {
      // Folded first; "Show full descriptions" asks again with every description whole.
      for (let full = false; ; full = true) {
        const view = describeConnectQuestion(q, full);
        const answer = await ask<ConnectDecision | 'expand'>(
          say`Connect to MCP server '${q.server}'?\n${view.text}\n`,
          [
            { name: say`Allow all tools (this session)`, value: 'allow-all' },
            { name: say`Require confirmation for each tool`, value: 'confirm-each' },
            { name: say`Deny connection`, value: 'deny' },
            ...(view.folded ? [{ name: say`Show full descriptions`, value: 'expand' as const }] : []),
          ],
          signal,
        );
        if (answer !== 'expand') return answer;
      }
    },
    askCall: (q, { signal } = {}) =>
      ask<CallDecision>(
        say`Allow ${q.tool.name}?\n${describeQuestion(q)}\n`,
        [
          { name: say`Allow once`, value: 'once' },
          { name: say`Allow always (this server, this session)`, value: 'always' },
          { name: say`Deny`, value: 'deny' },
        ],
        signal,
      ),
    askChanged: (q, { signal } = {}) =>
      ask<CallDecision>(
        say`The definition of '${q.tool.name}' on '${q.server}' changed since you approved it\n${describeQuestion(q)}\n`,
        [
          { name: say`Allow the new definition once`, value: 'once' },
          { name: say`Approve the new definition`, value: 'always' },
          { name: say`Deny`, value: 'deny' },
        ],
        signal,
      ),
  };
}

/**
 * What a terminal prompt's failure means: Ctrl-C at an @inquirer menu (raw mode, so
 * no SIGINT reaches the process) is the person cancelling — `Cancelled`, exit 130 —
 * not an unexpected error.
 */
export function promptFailure(error: unknown): unknown {
  if (error instanceof Error && error.name === 'ExitPromptError') {
    return new McpxError(ErrorCode.Cancelled, 'cancelled at the prompt (Ctrl-C)', { cause: error });
  }
  // The prompt's signal: the question was withdrawn (its server cancelled it) or the command ended.
  if (error instanceof Error && error.name === 'AbortPromptError') {
    return new McpxError(ErrorCode.Cancelled, 'cancelled: the question was withdrawn', { cause: error });
  }
  return error;
}
