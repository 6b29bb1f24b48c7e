import { createInterface } from 'node:readline';
import { hasNoDisplay, machineCredentials, signIn, signInWithDevice, TokenStore } from '../../auth/index.js';
import type { ServerConfig } from '../../config/index.js';
import { ErrorCode, McpxError } from '../../errors/index.js';
import { say } from '../../text/index.js';
import type { CliContext } from '../context/context.js';
import { ExitCode } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { showDeviceCode, showSignIn } from '../terminal/sign-in-prompt.js';

/** The configured server `name`, which must be a remote one: only those sign in. */
export async function remoteServer(
  session: CliContext,
  name: string,
): Promise<ServerConfig & { url: string }> {
  const server = await session.host.server(name);
  if (!server.url) {
    throw new McpxError(ErrorCode.Usage, `'${name}' is a local (stdio) server: only remote servers sign in`, {
      server: name,
      origin: server.origin,
      fixes: ['give a stdio server its credentials in `env` instead'],
    });
  }
  return server as ServerConfig & { url: string };
}

/** A server set up for a machine grant (client credentials, a JWT-bearer assertion) needs no person to sign in. */
function refuseMachineServer(server: ServerConfig & { url: string }): void {
  const machine = machineCredentials(server);
  if (!machine) return;
  const how = machine.grant
    ? 'a JWT-bearer assertion (oauth "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer")'
    : 'its client credentials (oauth "grant_type": "client_credentials")';
  throw new McpxError(
    ErrorCode.Usage,
    `'${server.name}' signs in by itself with ${how}: there is nothing to sign in to`,
    {
      server: server.name,
      origin: server.origin,
      fixes: [`call it directly, e.g. \`mcpx tools ${server.name}\``],
    },
  );
}

/**
 * `mcpx auth <server>`: sign in to a remote server with OAuth. The browser
 * opens on this machine (no shell involved); with --no-browser the URL is
 * printed, and the URL the browser ends on may be pasted back (remote and
 * headless machines). With --device, or by itself on a machine with no
 * display (`hasNoDisplay`) whose authorization server offers it, the device
 * grant: a code shown here, approved in a browser anywhere.
 */
export async function runAuth(
  session: CliContext,
  name: string,
  options: { browser?: boolean; device?: boolean },
): Promise<number> {
  const server = await remoteServer(session, name);
  refuseMachineServer(server);
  const headless = options.browser !== false && hasNoDisplay(session.io.env, process.platform);
  if (options.device || headless) {
    if (!options.device)
      session.notice(
        'No display here (no DISPLAY or WAYLAND_DISPLAY): signing in with a code instead of a browser.',
      );
    const outcome = await deviceSignIn(session, server);
    if (outcome !== 'unsupported') return signedIn(session, server.name, outcome);
    if (options.device) {
      throw new McpxError(
        ErrorCode.AuthRequired,
        `the authorization server of '${server.name}' does not offer sign-in with a device code`,
        {
          server: server.name,
          origin: server.origin,
          causes: ['its metadata names no device_authorization_endpoint (RFC 8628)'],
          fixes: [
            `sign in with a browser elsewhere: \`mcpx auth ${server.name} --no-browser\` prints the URL and takes the redirected URL pasted back`,
          ],
        },
      );
    }
    session.notice(
      `'${server.name}' offers no sign-in with a device code; open the URL below in a browser anywhere.`,
    );
  }
  return browserSignIn(session, server, options.browser !== false && !headless);
}

/** The device grant, its code shown on stderr; `unsupported` when the authorization server has none. */
async function deviceSignIn(
  session: CliContext,
  server: ServerConfig & { url: string },
): ReturnType<typeof signInWithDevice> {
  return signInWithDevice(server, {
    store: new TokenStore(session.host.home),
    show: (prompt) => showDeviceCode((line) => session.notice(line), server.name, prompt),
    signal: session.io.signal,
    ...(session.options.verbose ? { onSdkDiagnostic: (d) => session.sdkNotice(d) } : {}),
  });
}

async function browserSignIn(
  session: CliContext,
  server: ServerConfig & { url: string },
  useBrowser: boolean,
): Promise<number> {
  const { io } = session;
  // Without a browser the person may paste the URL the browser ended on; stop listening once signed in.
  const lines =
    !useBrowser && io.stdin ? createInterface({ input: io.stdin as NodeJS.ReadableStream }) : undefined;
  const pasted = lines
    ? new Promise<string | undefined>((resolve) => {
        lines.once('line', (line) => {
          // Before close(): closing emits 'close' at once, which would resolve with nothing.
          resolve(line.trim() || undefined);
          lines.close();
        });
        lines.once('close', () => resolve(undefined));
      })
    : undefined;
  let outcome: Awaited<ReturnType<typeof signIn>>;
  try {
    outcome = await signIn(server, {
      store: new TokenStore(session.host.home),
      ...(pasted ? { pasted } : {}),
      present: (url) => presentSignIn(session, server.name, url, useBrowser, pasted !== undefined),
      ...(session.options.verbose ? { onSdkDiagnostic: (d) => session.sdkNotice(d) } : {}),
    });
  } finally {
    lines?.close();
  }
  return signedIn(session, server.name, outcome);
}

function signedIn(session: CliContext, name: string, outcome: 'signed-in' | 'not-needed'): number {
  const { io } = session;
  const signedIn = outcome === 'signed-in';
  if (session.options.json)
    io.stdout.write(toJson({ server: name, signedIn, ...(signedIn ? {} : { needed: false }) }, 0));
  else if (signedIn) io.stdout.write(say`Signed in to '${name}'.\n`);
  else io.stdout.write(say`'${name}' accepted a request without sign-in: nothing to do.\n`);
  return ExitCode.Ok;
}

/**
 * Take the person to the authorization URL: the browser, or the URL printed
 * (with --no-browser, or when no browser opens). Also used when a server asks
 * for a wider scope in the middle of a command.
 */
export async function presentSignIn(
  session: CliContext,
  serverName: string,
  url: URL,
  useBrowser: boolean,
  acceptsPaste = false,
): Promise<void> {
  await showSignIn((line) => session.notice(line), serverName, url.href, useBrowser, undefined, acceptsPaste);
}

/** `mcpx logout <server>`: forget a server's tokens. */
export async function runLogout(session: CliContext, name: string): Promise<number> {
  const server = await remoteServer(session, name);
  const removed = await new TokenStore(session.host.home).remove(server.name, server.url);
  if (session.options.json) session.io.stdout.write(toJson({ server: server.name, removed }, 0));
  else
    session.io.stdout.write(
      removed ? say`Signed out of '${server.name}'.\n` : say`'${server.name}' had no stored sign-in.\n`,
    );
  return ExitCode.Ok;
}
