/**
 * The daemon's side of a light caller's `run` (`daemon-client/run-wire.ts`): it runs the caller's command
 * in the daemon, with the caller's terminal relayed over the socket (output, questions, a
 * sign-in, Ctrl-C), and sends back its exit code, or `direct` when the caller must run it.
 */
import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import {
  type CallerElicitation,
  type GivenAnswer,
  type RunEvent,
  type RunReply,
  type RunRequest,
  writeLine,
} from '../daemon-client/index.js';

/**
 * The caller's terminal as the daemon sees it during one `run`: what the
 * command writes goes back to the caller, its questions are asked there, and
 * the caller's Ctrl-C aborts `signal`.
 */
export interface RemoteTerminal {
  write(stream: 'out' | 'err', chunk: string | Uint8Array): void;
  /** Undefined when the caller hung up before answering. */
  ask(kind: 'confirm' | 'input', question: string, secret?: boolean): Promise<string | boolean | undefined>;
  /**
   * Ask a server's question (elicitation) at the caller's terminal; the result the
   * person gave, or undefined when they did not (the caller hung up, the prompt failed).
   */
  elicit(server: string, request: CallerElicitation): Promise<Readonly<Record<string, unknown>> | undefined>;
  /** Show a sign-in URL at the caller's terminal and open its browser (the caller's desktop). */
  signIn(server: string, url: string): void;
  readonly signal: AbortSignal;
  /**
   * Output is held until the command is known to be the daemon's (its server is
   * reached warm, or it asks a question): then the caller sees it as it comes.
   */
  commit(): void;
  /**
   * The command needs a server the daemon does not hold: what it wrote is
   * dropped and the caller runs the command itself, so nothing is said twice.
   */
  goDirect(): void;
}

/** Runs one caller's command (the CLI's `run`, injected: the library does not know the CLI). */
export type RunCommand = (request: RunRequest, terminal: RemoteTerminal) => Promise<number>;

/** Serve one `run` connection: the command's output, questions and exit code go back over `socket`. */
export async function serveRun(socket: Socket, request: RunRequest, runCommand: RunCommand): Promise<void> {
  const controller = new AbortController();
  const outbox = createOutbox(socket);
  const questions = createQuestions(socket, outbox);
  const lines = createInterface({ input: socket, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on('line', (line) => {
    let reply: RunReply;
    try {
      reply = JSON.parse(line) as RunReply;
    } catch {
      return;
    }
    if (reply.t === 'cancel') controller.abort();
    else questions.answered(reply);
  });
  // The caller is gone (it exited, or was killed): its command is cancelled, its questions unanswered.
  socket.once('close', () => {
    controller.abort();
    questions.unanswered();
  });
  const terminal: RemoteTerminal = {
    signal: controller.signal,
    write(stream, chunk) {
      outbox.send(
        typeof chunk === 'string'
          ? { t: stream, text: chunk }
          : { t: stream, base64: Buffer.from(chunk).toString('base64') },
      );
    },
    ask: questions.ask,
    elicit: questions.elicit,
    signIn(server, url) {
      outbox.commit();
      outbox.send({ t: 'signin', server, url });
    },
    commit: outbox.commit,
    goDirect: outbox.goDirect,
  };
  let code: number;
  try {
    code = await runCommand(request, terminal);
  } catch (error) {
    // The command's own errors are reported by it; this is the daemon failing to run it at all.
    terminal.write('err', `mcpx daemon: ${(error as Error).message}\n`);
    code = 1;
  }
  lines.close();
  if (socket.destroyed) return;
  if (outbox.isDirect()) {
    outbox.flush();
    const given = questions.given;
    writeLine(socket, { t: 'direct', ...(given.length ? { answers: given } : {}) } satisfies RunEvent);
  } else {
    outbox.commit();
    outbox.send({ t: 'exit', code });
    outbox.flush();
  }
  socket.end();
}

/** What goes back to the caller: held until the command is the daemon's, or dropped when it goes direct. */
interface Outbox {
  send(event: RunEvent): void;
  /** The command is the daemon's: what was held goes, and what follows goes as it comes. */
  commit(): void;
  /** Write what this turn of the event loop sent, now. */
  flush(): void;
  /** The caller runs the command itself: nothing more is sent. */
  goDirect(): void;
  isDirect(): boolean;
}

function createOutbox(socket: Socket): Outbox {
  let held: RunEvent[] | undefined = [];
  let direct = false;
  // Lines sent in one turn of the event loop (the result, then `exit`) leave as one write: the
  // caller wakes once for them, which on a loaded machine is a wait for a CPU saved.
  let outgoing = '';
  const flush = () => {
    if (outgoing && !socket.destroyed) socket.write(outgoing);
    outgoing = '';
  };
  const send = (event: RunEvent) => {
    if (direct || socket.destroyed) return;
    if (held) held.push(event);
    else {
      if (!outgoing) setImmediate(flush);
      outgoing += `${JSON.stringify(event)}\n`;
    }
  };
  const commit = () => {
    if (!held) return;
    const events = held;
    held = undefined;
    for (const event of events) send(event);
  };
  return {
    send,
    commit,
    flush,
    goDirect() {
      direct = true;
    },
    isDirect: () => direct,
  };
}

/** The questions asked at the caller's terminal, each waiting for its answer over the socket. */
interface Questions extends Pick<RemoteTerminal, 'ask' | 'elicit'> {
  /** The answers the person gave, for a command that goes direct (so it does not ask again). */
  readonly given: readonly GivenAnswer[];
  /** A reply of the caller's that answers a question. */
  answered(reply: RunReply): void;
  /** The caller hung up: every question still waiting is answered with nothing. */
  unanswered(): void;
}

function createQuestions(socket: Socket, outbox: Outbox): Questions {
  let nextId = 0;
  const answers = new Map<number, (value: string | boolean | undefined) => void>();
  const elicited = new Map<number, (result: Readonly<Record<string, unknown>> | undefined) => void>();
  const given: GivenAnswer[] = [];
  return {
    given,
    ask(kind, question, secret) {
      outbox.commit();
      if (socket.destroyed) return Promise.resolve(undefined);
      const id = nextId++;
      return new Promise((resolve) => {
        answers.set(id, (value) => {
          if (value !== undefined) given.push({ kind, question, value });
          resolve(value);
        });
        outbox.send({ t: 'ask', id, kind, question, ...(secret ? { secret } : {}) });
      });
    },
    elicit(server, request) {
      outbox.commit();
      if (socket.destroyed) return Promise.resolve(undefined);
      const id = nextId++;
      return new Promise((resolve) => {
        elicited.set(id, resolve);
        outbox.send({ t: 'elicit', id, server, request });
      });
    },
    answered(reply) {
      if (reply.t === 'answer') {
        answers.get(reply.id)?.(reply.value ?? undefined);
        answers.delete(reply.id);
      } else if (reply.t === 'elicited') {
        const result = reply.result;
        elicited.get(reply.id)?.(typeof result === 'object' && result !== null ? result : undefined);
        elicited.delete(reply.id);
      }
    },
    unanswered() {
      for (const answer of answers.values()) answer(undefined);
      answers.clear();
      for (const answer of elicited.values()) answer(undefined);
      elicited.clear();
    },
  };
}
