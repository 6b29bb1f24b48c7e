import type { ServerConfig } from '../config/index.js';
import type { Resolver, SdkDiagnostic } from '../transport/index.js';
import type { TokenStore } from './token-store.js';

/** What the person is shown to approve a device sign-in: every field is the authorization server's text. */
export interface DevicePrompt {
  /** The code the person types on the verification page. */
  readonly userCode: string;
  /** Where to type it: https (http only on this computer). */
  readonly verificationUri: string;
  /** The same page with the code filled in, when the server offers one. */
  readonly verificationUriComplete?: string;
  /** How long the code is good for. */
  readonly expiresInSeconds: number;
}

/** How `signInWithDevice` runs: where tokens go, and how the person is shown the code. */
export interface DeviceSignInOptions {
  readonly store: TokenStore;
  /** Show the person the code and where to enter it (sanitised by the front end: it is server text). */
  readonly show: (prompt: DevicePrompt) => void | Promise<void>;
  /** The scope to ask for instead of the one the server's 401 names. */
  readonly scope?: string;
  /** Abandons the sign-in (Ctrl-C): polling stops at once. */
  readonly signal?: AbortSignal;
  /** Tests: the network underneath mcpx's guarded fetch. */
  readonly fetch?: typeof fetch;
  readonly resolver?: Resolver;
  /** What the SDK says with `console.*` during the sign-in; dropped without a handler. */
  readonly onSdkDiagnostic?: (diagnostic: SdkDiagnostic) => void;
}

/**
 * How a device sign-in ended: tokens stored; nothing to do (the server
 * needs no sign-in); or `unsupported`, when the authorization server offers
 * no device authorization endpoint (sign in with the browser instead).
 */
export type DeviceSignInOutcome = 'signed-in' | 'not-needed' | 'unsupported';

/**
 * Sign in to one remote server without a browser on this machine: the OAuth
 * device authorization grant (RFC 8628). One request for a device code and a
 * user code, which `show` puts before the person; then the token endpoint is
 * polled every `interval` (longer after `slow_down`) until the person approves
 * on another device, refuses (`access_denied`), or the code expires
 * (`expired_token`), each refusal an AUTH_REQUIRED saying what to do. The
 * tokens are stored like a browser sign-in's, under the server's refresh lock.
 */
export async function signInWithDevice(
  server: ServerConfig & { readonly url: string },
  options: DeviceSignInOptions,
): Promise<DeviceSignInOutcome> {
  // The flow needs the SDK's OAuth client: loaded here, not with `import 'mcpx'`.
  const { runDeviceSignIn } = await import('./device-flow.js');
  return runDeviceSignIn(server, options);
}

/**
 * Whether this machine has no display for a browser, so a sign-in should use
 * the device grant by itself: a Linux or BSD session with neither `DISPLAY`
 * nor `WAYLAND_DISPLAY` (a server, a container, an SSH login without X
 * forwarding). Never on macOS or Windows, where a browser opens without either.
 */
export function hasNoDisplay(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
): boolean {
  if (platform === 'darwin' || platform === 'win32') return false;
  return !env.DISPLAY && !env.WAYLAND_DISPLAY;
}
