import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** The least key material `--state-key-file` may hold: 256 bits. */
export const MIN_STATE_KEY_BYTES = 32;

// A sealed state starts with this; the parked design's states are bare base64url, which has no '.'.
const PREFIX = 'mcpx1.';
// Binds every ciphertext to this use of the key, so nothing sealed elsewhere opens here.
const AAD = Buffer.from('mcpx gateway requestState v1');
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What one request is, for binding a state to it: a state opens only for the same call. */
export interface RoundBinding {
  /** Who may answer (`roundOwner`): the connection, or the credentials and client info over HTTP. */
  readonly owner: string;
  readonly method: string;
  /** The tool or prompt name, or the resource URI. */
  readonly target: string;
  /** The request's arguments; a state cannot be replayed onto a call with other ones. */
  readonly args: unknown;
}

/** An upstream's round, carried by the client between two requests instead of held in memory. */
export interface SealedRound {
  /** The upstream's own `requestState`, echoed to it byte for byte. */
  readonly upstreamState?: string;
  /** The keys the client was asked under (the upstream's own: the gateway renames none here). */
  readonly keys: readonly string[];
  /** Rounds so far in this call, so the gateway's cap on rounds holds across instances. */
  readonly rounds: number;
  /**
   * A round of the gateway's own (a consent question, asked before the upstream is
   * called): the client's answers to its earlier questions, in order. Absent on an upstream's round.
   */
  readonly answers?: readonly unknown[];
}

/** Why a state was refused (kept out of the client's message, which is the same for all). */
export type SealRefusal = 'malformed' | 'seal' | 'expired' | 'owner' | 'method' | 'target' | 'arguments';

export class SealRefused extends Error {
  readonly reason: SealRefusal;
  constructor(reason: SealRefusal) {
    super(`sealed requestState refused: ${reason}`);
    this.name = 'SealRefused';
    this.reason = reason;
  }
}

interface Payload {
  readonly s?: string;
  readonly k: readonly string[];
  readonly n: number;
  readonly g?: readonly unknown[];
  readonly o: string;
  readonly m: string;
  readonly t: string;
  readonly a: string;
  readonly e: number;
}

/** Whether a client's `requestState` is one the gateway sealed (rather than a parked call's). */
export function isSealedState(state: unknown): state is string {
  return typeof state === 'string' && state.startsWith(PREFIX);
}

/**
 * Multi-round-trip state that survives a load balancer: AES-256-GCM over the
 * upstream's round and what the request was, so any instance holding the same
 * key can carry on a call another one started, and no client can read, forge
 * or move a state onto another call. The key is derived (HKDF-SHA256) from
 * the operator's secret, so a key file of any length from 32 bytes serves.
 *
 * Not single use: within its expiry the same owner can send the same retry
 * twice, which resends the same request upstream (as calling again would);
 * the upstream's own state decides whether that round still stands.
 */
export class RoundSeal {
  readonly #key: Buffer;
  readonly #ttlMs: number;
  readonly #now: () => number;

  /** `secret`: the shared key material, or none for a per-process random key (one instance only). */
  constructor(secret: Uint8Array | undefined, ttlMs: number, now: () => number = Date.now) {
    if (secret !== undefined && secret.length < MIN_STATE_KEY_BYTES)
      throw new RangeError(`a state key needs at least ${MIN_STATE_KEY_BYTES} bytes`);
    const material = secret ?? randomBytes(MIN_STATE_KEY_BYTES);
    this.#key = Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), AAD, 32));
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  seal(round: SealedRound, binding: RoundBinding): string {
    const payload: Payload = {
      ...(round.upstreamState === undefined ? {} : { s: round.upstreamState }),
      k: round.keys,
      n: round.rounds,
      ...(round.answers === undefined ? {} : { g: round.answers }),
      o: digest(binding.owner),
      m: binding.method,
      t: binding.target,
      a: digest(stableJson(binding.args)),
      e: this.#now() + this.#ttlMs,
    };
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv).setAAD(AAD);
    const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The round a state carries, if it is genuine, current, and this request's; else `SealRefused`. */
  open(state: string, binding: RoundBinding): SealedRound {
    if (!isSealedState(state)) throw new SealRefused('malformed');
    const raw = Buffer.from(state.slice(PREFIX.length), 'base64url');
    if (raw.length <= IV_BYTES + TAG_BYTES) throw new SealRefused('malformed');
    let payload: Payload;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, IV_BYTES))
        .setAAD(AAD)
        .setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      payload = JSON.parse(text.toString('utf8')) as Payload;
    } catch {
      // Tampered, or sealed under another key (another instance without the shared key file).
      throw new SealRefused('seal');
    }
    if (!(payload.e > this.#now())) throw new SealRefused('expired');
    if (payload.o !== digest(binding.owner)) throw new SealRefused('owner');
    if (payload.m !== binding.method) throw new SealRefused('method');
    if (payload.t !== binding.target) throw new SealRefused('target');
    if (payload.a !== digest(stableJson(binding.args))) throw new SealRefused('arguments');
    return {
      ...(payload.s === undefined ? {} : { upstreamState: payload.s }),
      keys: payload.k,
      rounds: payload.n,
      ...(payload.g === undefined ? {} : { answers: payload.g }),
    };
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** JSON with object keys sorted, so the same arguments hash the same however a client orders them. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
