import type { DevicePrompt } from '../../auth/index.js';
import { forTerminal } from '../../text/index.js';
import { openBrowser } from './open-browser.js';

/**
 * Take the person to an authorization URL: their browser, or the URL printed
 * (with --no-browser, or when no browser opens). Light on purpose (no SDK): the
 * light caller shows a sign-in the daemon needs with this same code. The URL
 * comes from a server's metadata, so only http(s) is shown or opened.
 */
export async function showSignIn(
  notice: (line: string) => void,
  serverName: string,
  url: string,
  useBrowser: boolean,
  open: (url: string) => Promise<void> = openBrowser,
  /** The command reads a pasted redirect URL (`mcpx auth --no-browser`); elsewhere none is offered. */
  acceptsPaste = false,
): Promise<void> {
  const name = forTerminal(serverName);
  if (!isWebUrl(url)) {
    notice(`'${name}' asked for a sign-in at an address that is not http(s); not opened.`);
    return;
  }
  if (useBrowser) {
    notice(`Opening your browser to sign in to '${name}'…`);
    try {
      await open(url);
      return;
    } catch {
      notice('Could not open a browser.');
    }
  }
  notice(`Open this URL to sign in to '${name}':\n\n  ${forTerminal(url)}\n`);
  notice(
    acceptsPaste
      ? 'Then wait here, or paste the URL your browser ends on (it starts with http://127.0.0.1) and press Enter.'
      : 'Then finish the sign-in in the browser; this command waits for it.',
  );
}

/**
 * Show the person the code of a device sign-in and where to enter it. Every
 * part is the authorization server's text: made fit for a terminal here.
 */
export function showDeviceCode(
  notice: (line: string) => void,
  serverName: string,
  prompt: DevicePrompt,
): void {
  const name = forTerminal(serverName);
  const seconds = prompt.expiresInSeconds;
  const lifetime = seconds < 120 ? `${Math.round(seconds)} s` : `${Math.round(seconds / 60)} min`;
  notice(
    `To sign in to '${name}', open this page on any device with a browser:\n\n  ${forTerminal(prompt.verificationUri)}\n`,
  );
  notice(`and enter the code:  ${forTerminal(prompt.userCode)}\n`);
  if (prompt.verificationUriComplete)
    notice(`(or open ${forTerminal(prompt.verificationUriComplete)}, which fills the code in)`);
  notice(`The code is good for ${lifetime}; this command waits until you approve it (Ctrl-C to stop).`);
}

/** Said before a sign-in a command needs midway (a server wants more access, or its grant ended). */
export function signInAgainNotice(serverName: string): string {
  return `'${forTerminal(serverName)}' asks you to sign in again (it needs more access). The request waits until its timeout; if it runs out first, run the command again once you are signed in.`;
}

function isWebUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}
