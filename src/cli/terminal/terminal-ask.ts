import type { InputRequest, ServerConfig } from '../../config/index.js';
import { displayPaths } from '../../errors/index.js';
import type { Ask, ClientFeatures } from '../../host/index.js';
import type { Approver } from '../../permissions/index.js';
import { forTerminal, type SafeText } from '../../text/index.js';
import type { CliIo } from '../io/io.js';

/**
 * Who a CLI command can ask: the person at its terminal (trust and `${input:…}`
 * questions, permission questions, sign-ins), or nobody when stdin or stderr is
 * not one. The command's own features (chat's sampling) come with it; `command`
 * names it in a refusal with nobody to ask.
 */
export function terminalAsk(
  io: CliIo,
  notice: (line: string) => void,
  features: (server: ServerConfig) => ClientFeatures,
  command: string,
): Ask {
  const { confirm, ask, interactive, terminal } = io;
  return {
    who: interactive ? 'the person at this terminal' : 'nobody: stdin is not a terminal',
    ...(interactive && confirm
      ? {
          approveServer: (question) =>
            confirm(forTerminal(displayPaths(question.description.join('\n'), io.homedir))),
        }
      : {}),
    ...(interactive && ask
      ? { input: (request: InputRequest) => ask(inputQuestion(request), { secret: request.password }) }
      : {}),
    approver:
      interactive && terminal
        ? approverLater(async ({ terminalApprover }) => terminalApprover(terminal))
        : refusingApprover(command),
    features,
    ...(interactive ? { presentSignIn: (server, url) => presentSignIn(io, notice, server, url) } : {}),
  };
}

type Permissions = typeof import('../../permissions/index.js');

/**
 * An approver whose code loads when it is first asked: the permission engine is
 * no part of a command that never asks (a cold `mcpx call`).
 */
function approverLater(make: (permissions: Permissions) => Promise<Approver>): Approver {
  let made: Promise<Approver> | undefined;
  const approver = () => {
    made ??= import('../../permissions/index.js').then(make);
    return made;
  };
  return {
    answerer: 'terminal',
    askConnect: async (question, options) => (await approver()).askConnect(question, options),
    askCall: async (question, options) => (await approver()).askCall(question, options),
    askChanged: async (question, options) => (await approver()).askChanged(question, options),
  };
}

/** Nobody at a terminal: every question is answered no, and `reason` (read by the guard as it refuses) says why. */
function refusingApprover(command: string): Approver & { readonly reason: string } {
  const deny = async () => 'deny' as const;
  return {
    askConnect: deny,
    askCall: deny,
    askChanged: deny,
    reason: `${command} has no terminal to ask on (run it in a terminal, or pass --permission yolo)`,
  };
}

/**
 * A sign-in a command needs midway, shown at this command's terminal: the
 * caller's, for a light caller's command the daemon runs (its browser opens
 * on the caller's desktop, not in the daemon).
 */
async function presentSignIn(
  io: CliIo,
  notice: (line: string) => void,
  serverName: string,
  url: string,
): Promise<void> {
  const { showSignIn, signInAgainNotice } = await import('./sign-in-prompt.js');
  notice(signInAgainNotice(serverName));
  if (io.presentSignIn) await io.presentSignIn(serverName, url);
  else await showSignIn(notice, serverName, url, true);
}

function inputQuestion(request: InputRequest): SafeText {
  const what = request.description ? `${request.description} (${request.id})` : request.id;
  return forTerminal(
    `${what}${request.file ? ` for ${request.file}` : ''} — or set ${request.variable} next time:`,
  );
}
