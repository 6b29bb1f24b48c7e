/**
 * What a person's own commands (`mcpx call`, `read`, `prompt`, the shell) offer
 * the servers they connect: roots when the config names them (`sessionRoots`),
 * and elicitation only when a person can answer (stdin and stderr are terminals
 * of this process). Sampling never: these commands have no model. A capability
 * that is not offered is not declared, so a server that can do without it
 * does; one that cannot fails with an error that says why (`explainUnanswered`).
 */

import type { ElicitResult } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../../config/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import type { ClientFeatures } from '../../host/index.js';
import { redrawLine, type SafeText } from '../../text/index.js';
import type { CliIo } from '../io/io.js';
import type { CliContext } from './context.js';

/**
 * The directories every front end offers servers as roots: the config's `roots` where trusted,
 * else none, and then roots are not declared at all. The host offers them to a command's servers
 * (`HostOptions.offerConfigRoots`); this is what the keep-alive daemon tells a server it holds
 * from the start, as a plain command's host would offer them.
 *
 * Why not the working directory: a server that takes roots replaces its own configured folders
 * with them (server-filesystem does, modelcontextprotocol/servers#3602, #3929), so a folder in
 * the entry's `args` would silently give way to wherever the command happened to run. The
 * directories a server works in belong to its entry (or to `roots`, said on purpose), which
 * is also the 2026-07-28 spec's advice (roots are deprecated there, SEP-2577). And a held
 * server answers to callers in many folders: with the folder as a root, each folder would
 * need a server process of its own.
 */
export async function sessionRoots(session: CliContext): Promise<readonly string[] | undefined> {
  if (session.adhoc) return undefined;
  // `roots` of an untrusted repository file are held back by loadConfig (see heldSettings).
  return (await session.host.config()).roots;
}

/**
 * One terminal shared by a redrawn status line (a progress bar) and a
 * server's questions: a question clears the line and has the terminal to
 * itself until answered, and questions (several servers, or several in one
 * round) are asked one at a time.
 *
 * Ctrl-C means the command, not one question: a Ctrl-C at a question (the
 * prompt reads it as a key) also cancels every question queued behind it, and
 * `signal` (the command's Ctrl-C, a hang-up) cancels them all, the one being
 * asked included. A question's own signal (its server cancelled it) cancels
 * only that question.
 */
export function createTerminalTurns(write: (chunk: SafeText) => void, signal?: AbortSignal) {
  let asking = false;
  let drawn = false;
  let queue: Promise<unknown> = Promise.resolve();
  /** Bumped by a Ctrl-C at a question: the questions queued before it are the command's, and go with it. */
  let round = 0;
  return {
    /** Draw on the status line, unless a question has the terminal. */
    draw(chunk: SafeText): void {
      if (asking) return;
      write(chunk);
      drawn = true;
    },
    /** Run `ask` with the terminal to itself; the signal it gets aborts when the question is cancelled. */
    hold<T>(ask: (signal: AbortSignal) => Promise<T>, own?: AbortSignal): Promise<T> {
      const queuedIn = round;
      const turn = queue.then(async () => {
        const stop = anySignal([signal, own]);
        if (queuedIn !== round || stop.aborted) throw cancelledQuestion();
        if (drawn) write(redrawLine());
        drawn = false;
        asking = true;
        try {
          return await ask(stop);
        } catch (error) {
          // Not cut by a signal: the person pressed Ctrl-C at the prompt.
          if (isCancelled(error) && !stop.aborted) round += 1;
          throw error;
        } finally {
          asking = false;
        }
      });
      queue = turn.catch(() => {});
      return turn;
    },
  };
}

function anySignal(signals: readonly (AbortSignal | undefined)[]): AbortSignal {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  return present.length === 1 && present[0] ? present[0] : AbortSignal.any(present);
}

function cancelledQuestion(): McpxError {
  return new McpxError(ErrorCode.Cancelled, 'cancelled: the question was not asked (Ctrl-C)');
}

function isCancelled(error: unknown): boolean {
  return error instanceof McpxError && error.code === ErrorCode.Cancelled;
}

export type TerminalTurns = ReturnType<typeof createTerminalTurns>;

/**
 * Elicitation when a person is at this process's terminal: what `Ask.features` answers for a
 * person's own command (the host adds the config's roots, `offerConfigRoots`).
 */
export async function commandFeatures(
  io: CliIo,
  turns?: TerminalTurns,
): Promise<(server: ServerConfig) => ClientFeatures> {
  // A light caller's command runs inside the daemon: its questions are asked at the caller's
  // terminal (`io.elicit`), with the same prompts, so the server is told the same.
  const { elicit } = io;
  const atCaller = io.interactive && elicit ? elicit : undefined;
  const terminal = io.interactive && io.daemonCaller === undefined ? io.terminal : undefined;
  // The prompts load only where someone can answer them: a script's call loads none of them.
  const terminalElicitation = terminal
    ? (await import('../terminal/terminal-elicitation.js')).terminalElicitation
    : undefined;
  const hold = turns?.hold ?? (<T>(ask: () => Promise<T>) => ask());
  return (server) => ({
    ...(atCaller
      ? {
          elicitation: {
            form: (params) => hold(() => answered(atCaller(server.name, { mode: 'form', params }))),
            url: (params) => hold(() => answered(atCaller(server.name, { mode: 'url', params }))),
          },
        }
      : {}),
    ...(terminalElicitation
      ? {
          elicitation: terminalElicitation(server, {
            // Its stdin is opened only when a question comes: a call that asks nothing never pays for it.
            ...(terminal ? { terminal } : {}),
            ...(io.cancel ? { onInterrupt: io.cancel } : {}),
            ...(turns ? { hold: turns.hold } : {}),
          }),
        }
      : {}),
  });
}

/** The caller's answer to a question asked at its terminal; none (it hung up, its prompt failed) cancels. */
async function answered(
  result: Promise<Readonly<Record<string, unknown>> | undefined>,
): Promise<ElicitResult> {
  const answer = await result;
  if (!answer) throw new McpxError(ErrorCode.Cancelled, 'the question was not answered at the terminal');
  return answer as ElicitResult;
}

/**
 * A server's request this command could not answer, said in the command's
 * terms: why nobody was asked, and what to do. Any other error is returned as it is.
 */
export function explainUnanswered(error: unknown, session: CliContext, command: string): unknown {
  if (!(error instanceof McpxError) || error.code !== ErrorCode.ClientCapabilityMissing) return error;
  const server = error.context.server ?? 'the server';
  const needs = error.context.capabilities ?? [];
  const context = { server, capabilities: needs, cause: error };
  if (needs.includes('elicitation')) {
    return new McpxError(
      ErrorCode.ClientCapabilityMissing,
      `server '${server}' asked a question (elicitation), and ${command} has no terminal to ask it`,
      { ...context, fixes: ['run it at a terminal (stdin and stderr): mcpx asks you there'] },
    );
  }
  if (needs.includes('roots')) {
    // Roots are offered only where the config names them (see sessionRoots).
    const adhoc = session.adhoc !== undefined;
    return new McpxError(
      ErrorCode.ClientCapabilityMissing,
      adhoc
        ? `server '${server}' asked for the folders it may work in (roots), and an ad-hoc server is given none`
        : `server '${server}' asked for the folders it may work in (roots), and the config names none`,
      {
        ...context,
        fixes: [
          adhoc
            ? 'give the server its folder on its command line, or configure it with "roots" in an mcp.json'
            : `name them in your mcp.json ("roots": ["."], relative to that file), or give the server its folder in its entry's args`,
        ],
      },
    );
  }
  if (needs.includes('sampling')) {
    return new McpxError(
      ErrorCode.ClientCapabilityMissing,
      `server '${server}' asked for a model completion (sampling), and ${command} has no model`,
      { ...context, fixes: ['use it from `mcpx chat`, whose model answers (you approve each request)'] },
    );
  }
  return error;
}
