import type { InputRequest, ServerConfig } from '../config/index.js';
import type { Ask, ClientFeatures } from '../host/index.js';
import { forTerminal } from '../text/index.js';
import type { CliIo } from './io.js';

/**
 * Who a CLI command can ask: the person at its terminal (trust and `${input:…}`
 * questions, sign-ins), or nobody when stdin or stderr is not one. The
 * command's own features (chat's sampling, the gateway's relays) come with it.
 */
export function terminalAsk(
  io: CliIo,
  notice: (line: string) => void,
  features: (server: ServerConfig) => ClientFeatures,
): Ask {
  const { confirm, ask, interactive } = io;
  return {
    who: interactive ? 'the person at this terminal' : 'nobody: stdin is not a terminal',
    ...(interactive && confirm
      ? { approveServer: (question) => confirm(question.description.join('\n')) }
      : {}),
    ...(interactive && ask
      ? { input: (request: InputRequest) => ask(inputQuestion(request), { secret: request.password }) }
      : {}),
    features,
    ...(interactive ? { presentSignIn: (server, url) => presentSignIn(io, notice, server, url) } : {}),
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

function inputQuestion(request: InputRequest): string {
  const what = request.description ? `${request.description} (${request.id})` : request.id;
  return forTerminal(
    `${what}${request.file ? ` for ${request.file}` : ''} — or set ${request.variable} next time:`,
  );
}
