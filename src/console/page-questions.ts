import type { Approver, CallQuestion, ConnectQuestion } from '../permissions/index.js';

/** A permission question waiting for the person at the page. */
export interface PageQuestion {
  readonly id: number;
  readonly kind: 'connect' | 'call' | 'changed';
  readonly server: string;
  /** The tool asked about (a call, a changed definition); absent for a server's connection. */
  readonly tool?: string;
  /** The tool names a connection would offer, or the call's arguments. */
  readonly detail: unknown;
  /** What the person may answer. */
  readonly choices: readonly string[];
}

/** The permission questions the console's host asks, answered from the page. */
export interface PageQuestions {
  /** Handed to the host as its `ask.approver`. */
  readonly approver: Approver;
  /** Questions not yet answered, oldest first. */
  pending(): PageQuestion[];
  /** The person's answer; false when no such question waits or the answer is not one of its choices. */
  answer(id: number, choice: string): boolean;
  /** Every waiting question is answered no (the console is closing). */
  denyAll(): void;
  /** Be told when a question comes or goes; returns the unsubscribe. */
  on(listener: () => void): () => void;
}

const CONNECT_CHOICES = ['allow-all', 'confirm-each', 'deny'] as const;
const CALL_CHOICES = ['once', 'always', 'deny'] as const;

/**
 * Questions from the permission engine, held until the page answers them: listeners (`on`) are
 * told of each new or answered question, so the page can show it. A question whose asker gives
 * up (its signal aborts) is withdrawn and answered `deny`.
 */
export function createPageQuestions(): PageQuestions {
  let next = 1;
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  const waiting = new Map<number, { question: PageQuestion; resolve: (choice: string) => void }>();
  const ask = <T extends string>(
    question: Omit<PageQuestion, 'id' | 'choices'>,
    choices: readonly T[],
    signal: AbortSignal | undefined,
  ): Promise<T> =>
    new Promise<T>((resolve) => {
      const id = next++;
      const settle = (choice: string) => {
        if (!waiting.delete(id)) return;
        signal?.removeEventListener('abort', withdraw);
        resolve(choice as T);
        changed();
      };
      const withdraw = () => settle('deny');
      waiting.set(id, { question: { ...question, id, choices }, resolve: settle });
      signal?.addEventListener('abort', withdraw, { once: true });
      changed();
    });
  const call = (kind: 'call' | 'changed', q: CallQuestion, signal: AbortSignal | undefined) =>
    ask({ kind, server: q.server, tool: q.tool.name, detail: q.args }, CALL_CHOICES, signal);
  return {
    approver: {
      // A person answers, as at a terminal (the audit log has no word for a page yet).
      answerer: 'terminal',
      askConnect: (q: ConnectQuestion, options) =>
        ask(
          { kind: 'connect', server: q.server, detail: q.tools.map((t) => t.name) },
          CONNECT_CHOICES,
          options?.signal,
        ),
      askCall: (q, options) => call('call', q, options?.signal),
      askChanged: (q, options) => call('changed', q, options?.signal),
    },
    pending: () => [...waiting.values()].map((w) => w.question),
    answer(id, choice) {
      const entry = waiting.get(id);
      if (!entry?.question.choices.includes(choice)) return false;
      entry.resolve(choice);
      return true;
    },
    denyAll() {
      for (const entry of [...waiting.values()]) entry.resolve('deny');
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
