import type { TransportHooks } from '../client/index.js';
import type { ServerConfig } from '../config/index.js';
import { formatErrorLine } from '../errors/index.js';
import { forTerminal } from '../text/index.js';
import type { Ask } from './ask.js';
import { type HostEvent, preview } from './events.js';
import type { Env } from './types.js';

export interface TransportHooksOptions {
  readonly env: Env;
  readonly platform?: NodeJS.Platform;
  /** The mcpx home, whose OAuth tokens remote servers use. */
  readonly home: string;
  /** This process is the keep-alive daemon: it asks no one. */
  readonly isDaemon: boolean;
  readonly presentSignIn: Ask['presentSignIn'];
  readonly installs: boolean;
  readonly verbose: boolean;
  /**
   * A long-running host (the daemon, serve, the shell, chat): an ended sign-in is also told as a
   * notice (its error's line), once per server and ending (`once` says whether a key is new to this host).
   */
  readonly signInWarnings?: { readonly once: (key: string) => boolean };
  readonly emit: (event: HostEvent) => void;
}

/** How one server's transport tells the host what happens to it: output, installs, sign-ins. */
export function transportHooks(server: ServerConfig, options: TransportHooksOptions): TransportHooks {
  const { presentSignIn: present, isDaemon, emit } = options;
  const verbose = (message: string) => emit({ type: 'verbose', message: forTerminal(message) });
  // A signed-in server that asks for a wider scope (or moved to another authorization server)
  // midway gets a new sign-in shown by whoever can be asked, then the request again. The daemon
  // asks no one: its callers sign in at their own terminals (daemon-client/route.ts).
  const signIn: TransportHooks['signIn'] =
    present && !isDaemon ? { present: (url) => present(server.name, url.href) } : undefined;
  const hooks: TransportHooks = {
    hostEnv: options.env,
    ...(options.platform ? { platform: options.platform } : {}),
    oauthHome: options.home,
    ...(signIn ? { signIn } : {}),
    ...(isDaemon ? { callerSignsIn: true } : {}),
    // A garbled message is a server's failure: told always, not only when verbose.
    onMalformedMessage: (error) => emit({ type: 'warning', message: forTerminal(error.message) }),
    ...(options.installs ? { onPackageInstall: (event) => emit({ type: 'install', event }) } : {}),
    ...(options.signInWarnings
      ? {
          onSignInEnded: (error, endedAt) => {
            // Every call still fails with the error; the process says why and what to do once.
            if (options.signInWarnings?.once(`${server.name}\0${endedAt}`))
              emit({ type: 'notice', message: forTerminal(formatErrorLine(error)) });
          },
        }
      : {}),
  };
  if (!options.verbose) return hooks;
  return {
    ...hooks,
    http: {
      onRetry: (retry) =>
        verbose(
          `${server.name}: ${retry.what} failed (${forTerminal(retry.reason)}), retry ${retry.attempt} of ${retry.maxRetries} in ${Math.round(retry.delayMs)} ms`,
        ),
    },
    onInvalidLine: (line) => verbose(`${server.name}: ignored a line that is not JSON-RPC: ${preview(line)}`),
    onStderrLine: (line) => verbose(`${server.name} stderr: ${preview(line)}`),
  };
}
