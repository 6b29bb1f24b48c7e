import { createHmac, randomBytes } from 'node:crypto';
import { canonicalJson, type ServerConfig } from '../config/index.js';
import { type CallerOffer, NO_OFFER } from '../daemon-client/index.js';

/**
 * Who one held server process is: the entry as its caller resolved it, and what
 * its callers can answer (`CallerOffer`), without the values.
 */
export interface InstanceKey {
  /**
   * Equal for two callers exactly when everything that reaches the server is equal: the
   * entry (values included) and the capabilities and roots it is told at `initialize`.
   */
  readonly id: string;
  /** A short form of `id` for people (`daemon status`); says which instance, never what values. */
  readonly tag: string;
  /**
   * The entry as written (templates, not values): two callers of one unchanged entry whose
   * environments differ share it; an edited entry does not.
   */
  readonly definition: string;
}

/**
 * Names instances without revealing what tells them apart. The id is an HMAC
 * under a key made when the daemon starts and never written anywhere: a plain
 * hash of `AWS_PROFILE=prod` could be guessed back from a tag in a status
 * output or a bug report, a keyed one cannot. Ids therefore mean something only
 * inside one daemon's lifetime, which is all they are for.
 */
export function createInstanceKeys(
  secret: Uint8Array = randomBytes(32),
): (config: ServerConfig, offer?: CallerOffer) => InstanceKey {
  return (config, offer = NO_OFFER) => {
    const { origin: _origin, ...resolved } = config;
    const id = createHmac('sha256', secret)
      .update(canonicalJson({ entry: resolved, offer }))
      .digest('hex');
    return { id, tag: id.slice(0, 8), definition: definitionOf(config) };
  };
}

/**
 * Everything of an entry but what a caller's environment fills in: its
 * `env_passthrough` values (in `env` once resolved, see `daemon-client/passthrough.ts`) and
 * its `${VAR}`s (in env, headers, command, args, cwd and url, and so in the
 * fingerprint and variables made from them). Those fields count as written.
 */
function definitionOf(config: ServerConfig): string {
  const {
    origin: _origin,
    env: _env,
    headers: _headers,
    command,
    args,
    cwd,
    url,
    envPassthrough,
    fingerprint: _fingerprint,
    variables: _variables,
    asWritten,
    ...settings
  } = config;
  // Built-in entries have no written form; nothing in them comes from a caller but env and headers.
  return canonicalJson({ settings, written: asWritten ?? { command, args, cwd, url, envPassthrough } });
}
