import type { ServerConfig } from '../config/index.js';
import type { Resolver, SdkDiagnostic } from '../transport/index.js';
import type { TokenStore } from './token-store.js';

/** How `signIn` runs a browser sign-in: where tokens go, how the person is shown the URL, and how long to wait. */
export interface SignInOptions {
  readonly store: TokenStore;
  /** Take the person to the authorization URL (the browser, or printing it for --no-browser). */
  readonly present: (url: URL) => Promise<void>;
  /** A redirected URL pasted by the person (remote or headless machines); optional. */
  readonly pasted?: Promise<string | undefined>;
  readonly timeoutMs?: number;
  /**
   * The scope to ask for instead of the one the server's 401 names: a
   * step-up asks for what it has plus what the server now wants.
   */
  readonly scope?: string;
  /** Tests: the network underneath mcpx's guarded fetch (SSRF checks, no redirects, size caps). */
  readonly fetch?: typeof fetch;
  readonly resolver?: Resolver;
  /** What the SDK says with `console.*` during the sign-in (OAuth fallbacks); dropped without a handler. */
  readonly onSdkDiagnostic?: (diagnostic: SdkDiagnostic) => void;
  /** Abandons the sign-in (Ctrl-C, or the caller hung up): the redirect listener closes at once. */
  readonly signal?: AbortSignal;
}

/**
 * How a sign-in ended: tokens stored, or nothing to do because the server
 * answered an unauthenticated request (it needs no sign-in).
 */
export type SignInOutcome = 'signed-in' | 'not-needed';

/**
 * Sign in to one remote server: discovery, registration (or the config's
 * pre-registered client), the authorization request with PKCE S256, `state`
 * and `resource`, the redirect caught on a loopback listener (or pasted),
 * `state` and `iss` verified, the code exchanged, tokens stored 0600.
 * Resolves once tokens are stored, or with `not-needed` (nothing stored,
 * nothing registered) when the server accepted a request without a token.
 */
export async function signIn(
  server: ServerConfig & { readonly url: string },
  options: SignInOptions,
): Promise<SignInOutcome> {
  // The flow needs the SDK's OAuth client: loaded here, not with `import 'mcpx'`.
  const { runSignIn } = await import('./sign-in-flow.js');
  return runSignIn(server, options);
}
