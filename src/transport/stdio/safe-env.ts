/**
 * The environment a stdio server starts with: a short list of variables every
 * program needs to run, plus only what the config names. Everything else the
 * host has (API keys, cloud credentials, tokens) stays out unless asked for.
 */

/**
 * Host variables every server receives. Programs need them to find executables,
 * their home, a temp directory and the locale — none of them is a secret.
 *
 * The Windows names matter even for "simple" servers: without `PATHEXT`, `npx`
 * does not resolve to `npx.cmd`; without `SYSTEMROOT`, Winsock and crypto APIs
 * fail; Node and npm look for `APPDATA`, `LOCALAPPDATA` and `USERPROFILE`.
 * On Windows they match whatever the case (`SystemRoot`, `Path`).
 */
export const SAFE_ENV_KEYS: readonly string[] = Object.freeze([
  // POSIX (and cross-platform)
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TMPDIR',
  'TMP',
  'TEMP',
  'TZ',
  // Windows
  'USERPROFILE',
  'USERNAME',
  'APPDATA',
  'LOCALAPPDATA',
  'PATHEXT',
  'SYSTEMROOT',
  'SYSTEMDRIVE',
  'WINDIR',
  'COMSPEC',
  'HOMEDRIVE',
  'HOMEPATH',
  'PROGRAMFILES',
  'PROGRAMFILES(X86)',
  'PROGRAMW6432',
  'PROGRAMDATA',
  'PROCESSOR_ARCHITECTURE',
]);

const SAFE_UPPER: ReadonlySet<string> = new Set(SAFE_ENV_KEYS.map((key) => key.toUpperCase()));

/** Input of {@link buildServerEnv}. */
export interface BuildServerEnvOptions {
  /** The host's environment (usually `process.env`). */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** Variables set explicitly for the server (config `env`); they win over everything. */
  readonly env?: Readonly<Record<string, string>>;
  /** Names of host variables passed through unchanged (config `env_passthrough`). */
  readonly envPassthrough?: readonly string[];
  /** Decides whether names compare case-insensitively (`win32`). Default: `process.platform`. */
  readonly platform?: NodeJS.Platform;
}

/**
 * The final environment for a stdio server: {@link SAFE_ENV_KEYS} from the
 * host, then the `envPassthrough` names from the host, then `env` (explicit
 * values win). On win32 names compare case-insensitively and the result holds
 * each name once (the host's spelling, or the explicit one when `env` sets it).
 *
 * @example
 * buildServerEnv({ hostEnv: process.env, env: { DEBUG: '1' }, envPassthrough: ['GITHUB_TOKEN'] })
 * // → { PATH: '…', HOME: '…', …, GITHUB_TOKEN: '…', DEBUG: '1' } — and no AWS_SECRET_ACCESS_KEY
 */
export function buildServerEnv(options: BuildServerEnvOptions): Record<string, string> {
  const { hostEnv, env = {}, envPassthrough = [] } = options;
  const caseless = (options.platform ?? process.platform) === 'win32';
  const norm = caseless ? (name: string) => name.toUpperCase() : (name: string) => name;
  // Keyed by the normalized name so a later layer replaces an earlier one even when spelled differently.
  const chosen = new Map<string, [name: string, value: string]>();

  const passthrough = new Set(envPassthrough.map(norm));
  for (const [name, value] of Object.entries(hostEnv)) {
    if (value === undefined) continue;
    const key = norm(name);
    if (passthrough.has(key)) {
      chosen.set(key, [name, value]);
    } else if (SAFE_UPPER.has(key) && !value.startsWith('()')) {
      // A value starting with "()" is an exported bash function (the Shellshock vector):
      // never passed implicitly, only when named in envPassthrough.
      chosen.set(key, [name, value]);
    }
  }
  for (const [name, value] of Object.entries(env)) chosen.set(norm(name), [name, value]);

  const result: Record<string, string> = {};
  for (const [name, value] of chosen.values()) result[name] = value;
  return result;
}

/** Reads `name` from an environment, case-insensitively on win32 (`Path` for `PATH`). */
export function getEnv(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (platform !== 'win32') return env[name];
  const exact = env[name];
  if (exact !== undefined) return exact;
  const upper = name.toUpperCase();
  for (const [key, value] of Object.entries(env)) {
    if (key.toUpperCase() === upper && value !== undefined) return value;
  }
  return undefined;
}
