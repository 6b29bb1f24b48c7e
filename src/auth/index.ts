export type { AssertionGrant, CredentialSource } from './assertion-grant.js';
export {
  ClientCredentialsAuth,
  type ClientCredentialsAuthOptions,
  type MachineCredentials,
  machineCredentials,
} from './client-credentials.js';
export {
  type DevicePrompt,
  type DeviceSignInOptions,
  type DeviceSignInOutcome,
  hasNoDisplay,
  signInWithDevice,
} from './device-sign-in.js';
export type { StoredDpopKey } from './dpop.js';
export {
  type AuthorizationResponse,
  type LoopbackListener,
  parseAuthorizationResponse,
  startLoopbackListener,
} from './loopback.js';
export {
  authError,
  McpxOAuthProvider,
  type McpxOAuthProviderOptions,
  oauthSettings,
} from './oauth-provider.js';
export { expiresAt, SharedSignIn, type SharedSignInOptions, type SignInFetch } from './shared-sign-in.js';
export { type SignInOptions, type SignInOutcome, signIn } from './sign-in.js';
export { type StoredCredentials, TokenStore } from './token-store.js';
