/**
 * The consent of clients without a session (2026-07-28 over HTTP), and of each 2025-11-25 session
 * over HTTP, kept in the fleet's shared store instead of one process's memory, so an answer given
 * through one instance is honoured through every other (`mcpx serve --http --state`), and a
 * session continued on another instance after its own died does not ask its person again.
 *
 * Layout: one Redis hash per client (or per session and its credentials: `ofSession`),
 * `${prefix}consent:<digest of the client's identity>`, a field
 * per answer (`c:<server>` a connect decision, `a:<server>\0<tool>` an approved definition), so two
 * instances settling two answers of one client at once both keep theirs. Each hash expires after
 * the idle time, refreshed by every answer kept; `${prefix}consent:clients` (a sorted set of the
 * hashes by last use) bounds how many clients are kept, as in memory, dropping the least recent.
 *
 * What Redis hands back was written by another process: parsed, bounded and checked before it is
 * believed. With the fleet's shared `--state-key-file`, every answer carries an HMAC bound to its
 * client and field, so a process that can write to Redis but has not the key cannot plant a grant,
 * nor move one client's answer onto another; without it, Redis itself is trusted with them.
 *
 * The store down: an answer that cannot be read is not known here, so the person is asked again
 * (never a silent grant), and one that cannot be written holds for the call it was given for and
 * is reported (`onStoreError`: the instance says it on stderr), never silently lost.
 */
import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import { ErrorCode, McpxError } from '../../errors/index.js';
import type { ConnectDecision, PermissionAnswers } from '../../permissions/index.js';
import { type Consents, KEPT_CLIENTS, KEPT_IDLE_MS, type KeptAnswers } from '../consent.js';
import type { FleetState } from './fleet-state.js';
import { storeError } from './store-error.js';

/** How much of one client's kept answers is believed: more fields, or a longer value, is not ours. */
const MAX_FIELDS = 10_000;
const MAX_VALUE_CHARS = 256 * 1024;
const CONNECT_DECISIONS: readonly string[] = [
  'allow-all',
  'confirm-each',
  'deny',
] satisfies ConnectDecision[];

export interface FleetConsentOptions {
  /** The fleet's shared `--state-key-file` key: answers are then authenticated with it. */
  readonly stateKey?: Uint8Array;
  /** Default 30 minutes, as in memory. */
  readonly idleMs?: number;
  /** Default 1,000 clients, as in memory. */
  readonly maxClients?: number;
  /**
   * The store failed a read (`read`: the person is asked again), a write (`write`: the answer
   * holds for this call only), or held an answer that is not one (`invalid`: it is not used).
   */
  readonly onStoreError: (what: 'read' | 'write' | 'invalid', error: unknown) => void;
}

// Every answer of the call in one step: its fields set, the client's hash and the fleet's index of
// clients expiring after the idle time, and the least recently used clients past the bound dropped.
const KEEP_SCRIPT = `
for i = 5, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], KEYS[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[1]))
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if over > 0 then
  for _, key in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
    if string.sub(key, 1, #ARGV[4]) == ARGV[4] then redis.call('DEL', key) end
  end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
`;

type Approval = { readonly fingerprint: string; readonly tool: Tool };

/**
 * {@link Consents} in the fleet's store. Each request's {@link KeptAnswers} reads the client's
 * answers once and writes back only those its call changed.
 */
export class FleetConsents implements Consents {
  readonly #fleet: FleetState;
  readonly #mac: Buffer | undefined;
  readonly #idleMs: number;
  readonly #max: number;
  readonly #onStoreError: FleetConsentOptions['onStoreError'];
  readonly #space: string;

  constructor(fleet: FleetState, options: FleetConsentOptions) {
    this.#fleet = fleet;
    this.#mac = options.stateKey
      ? Buffer.from(hkdfSync('sha256', options.stateKey, 'mcpx', 'mcpx fleet consent v1', 32))
      : undefined;
    this.#idleMs = options.idleMs ?? KEPT_IDLE_MS;
    this.#max = options.maxClients ?? KEPT_CLIENTS;
    this.#onStoreError = options.onStoreError;
    this.#space = `${fleet.prefix}consent:`;
  }

  of(identity: string): KeptAnswers {
    return this.#keptAt(this.#space + this.#digest(`client\0${identity}`));
  }

  /**
   * The answers of a 2025-11-25 session's person, as the session's request `credentials` (hashed)
   * find them: kept under the session and the credentials, so an instance continuing the session
   * after another died starts from them, and a session id alone (other credentials) finds none.
   */
  ofSession(sessionId: string, credentials: string): KeptAnswers {
    return this.#keptAt(this.#sessionKey(sessionId, credentials));
  }

  /** A session ended (its DELETE, on any instance): its answers under these credentials go with it. */
  async endSession(sessionId: string, credentials: string): Promise<void> {
    const key = this.#sessionKey(sessionId, credentials);
    try {
      await this.#fleet.redis.multi().del(key).zrem(`${this.#space}clients`, key).exec();
    } catch (error) {
      // Not removed now: they expire after the idle time, as any answer does.
      this.#onStoreError('write', error);
    }
  }

  #sessionKey(sessionId: string, credentials: string): string {
    return this.#space + this.#digest(`session\0${sessionId}\0${credentials}`);
  }

  #keptAt(key: string): KeptAnswers {
    let loaded: PermissionAnswers | undefined;
    let unread: string | undefined;
    return {
      unread: () => unread,
      answers: async () => {
        let fields: Record<string, string>;
        try {
          fields = await this.#fleet.redis.hgetall(key);
        } catch (error) {
          this.#onStoreError('read', error);
          unread =
            "the gateway's shared store is down: an earlier answer could not be read, nor this one shared";
          return undefined;
        }
        loaded = this.#parse(key, fields);
        return loaded;
      },
      keep: async (answers) => {
        const changed = this.#changes(key, answers, loaded);
        try {
          await this.#fleet.redis.eval(
            KEEP_SCRIPT,
            2,
            key,
            `${this.#space}clients`,
            this.#idleMs,
            Date.now(),
            this.#max,
            this.#space,
            ...changed,
          );
          loaded = { connect: new Map(answers.connect), approved: new Map(answers.approved) };
        } catch (error) {
          this.#onStoreError('write', error);
        }
      },
    };
  }

  /** The fields to write: each answer that is new or other than the one read. */
  #changes(key: string, answers: PermissionAnswers, before: PermissionAnswers | undefined): string[] {
    const fields: string[] = [];
    for (const [server, decision] of answers.connect)
      if (before?.connect.get(server) !== decision) fields.push(...this.#field(key, `c:${server}`, decision));
    for (const [tool, approval] of answers.approved)
      if (before?.approved.get(tool)?.fingerprint !== approval.fingerprint)
        fields.push(
          ...this.#field(key, `a:${tool}`, { fingerprint: approval.fingerprint, tool: approval.tool }),
        );
    return fields;
  }

  #field(key: string, field: string, value: unknown): [string, string] {
    const payload = JSON.stringify(value);
    return [field, JSON.stringify([this.#seal(key, field, payload), payload])];
  }

  /** The client's answers as read, each one checked; one that is not an answer is left out (so asked again). */
  #parse(key: string, fields: Record<string, string>): PermissionAnswers | undefined {
    const entries = Object.entries(fields);
    if (entries.length === 0) return undefined;
    const connect = new Map<string, ConnectDecision>();
    const approved = new Map<string, Approval>();
    if (entries.length > MAX_FIELDS) {
      this.#onStoreError('invalid', new Error(`a client's answers have ${entries.length} fields`));
      return undefined;
    }
    let invalid = 0;
    for (const [field, raw] of entries) {
      const value = this.#open(key, field, raw);
      if (field.startsWith('c:') && typeof value === 'string' && CONNECT_DECISIONS.includes(value))
        connect.set(field.slice(2), value as ConnectDecision);
      else if (field.startsWith('a:') && isApproval(value)) approved.set(field.slice(2), value);
      else invalid++;
    }
    if (invalid > 0)
      this.#onStoreError('invalid', new Error(`${invalid} of a client's kept answers are not answers`));
    return { connect, approved };
  }

  /** The value of one field, when its seal (with the key) holds; else undefined. */
  #open(key: string, field: string, raw: string): unknown {
    if (raw.length > MAX_VALUE_CHARS) return undefined;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!Array.isArray(parsed) || parsed.length !== 2) return undefined;
      const [seal, payload] = parsed as unknown[];
      if (typeof seal !== 'string' || typeof payload !== 'string') return undefined;
      const expected = Buffer.from(this.#seal(key, field, payload));
      const given = Buffer.from(seal);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
      return JSON.parse(payload);
    } catch {
      return undefined;
    }
  }

  /** Bound to the client's hash and the field, so no answer moves to another client or question. */
  #seal(key: string, field: string, payload: string): string {
    return this.#mac ? this.#digest(`${key}\0${field}\0${payload}`) : '';
  }

  #digest(text: string): string {
    return (this.#mac ? createHmac('sha256', this.#mac) : createHash('sha256'))
      .update(text)
      .digest('base64url');
  }
}

function isApproval(value: unknown): value is Approval {
  if (typeof value !== 'object' || value === null) return false;
  const { fingerprint, tool } = value as { fingerprint?: unknown; tool?: unknown };
  if (typeof fingerprint !== 'string' || typeof tool !== 'object' || tool === null) return false;
  const { name, description, inputSchema } = tool as Record<string, unknown>;
  return (
    typeof name === 'string' &&
    (description === undefined || typeof description === 'string') &&
    (inputSchema === undefined || (typeof inputSchema === 'object' && inputSchema !== null))
  );
}

/**
 * A gateway's {@link FleetConsents}: authenticated with the fleet's `stateKey` when it has one, and
 * each failure of the store told (through `tell`) as {@link consentStoreNotices} words it.
 */
export function fleetConsents(
  fleet: FleetState,
  stateKey: Uint8Array | undefined,
  tell: (error: McpxError) => void,
): FleetConsents {
  return new FleetConsents(fleet, {
    ...(stateKey ? { stateKey } : {}),
    onStoreError: consentStoreNotices(fleet, tell),
  });
}

/** How often one kind of store failure is told while it lasts: once, then at most every 10 s. */
const NOTICE_EVERY_MS = 10_000;

/**
 * The {@link FleetConsentOptions.onStoreError} a gateway reports with: each kind of failure as an
 * error saying what it means for the client (asked again, or an answer that holds for one call),
 * told at once and then at most every 10 s while it lasts, with how many were not told.
 */
export function consentStoreNotices(
  fleet: Pick<FleetState, 'where'>,
  tell: (error: McpxError) => void,
): FleetConsentOptions['onStoreError'] {
  const last = new Map<string, { at: number; untold: number }>();
  return (what, cause) => {
    const now = Date.now();
    const seen = last.get(what);
    if (seen && now - seen.at < NOTICE_EVERY_MS) {
      seen.untold++;
      return;
    }
    last.set(what, { at: now, untold: 0 });
    const more = seen?.untold ? ` (and ${seen.untold} more since the last notice)` : '';
    const message =
      what === 'read'
        ? `a client's consent answers could not be read from the fleet's shared state at ${fleet.where}: its person is asked again${more}`
        : what === 'write'
          ? `a client's consent answer was not shared with the fleet (the shared state at ${fleet.where} failed): it holds for that call only, and the person is asked again on the next${more}`
          : `the fleet's shared state at ${fleet.where} holds consent answers that are not this fleet's (another --state-key-file, or written by something else): they are not used, the person is asked again${more}`;
    tell(
      new McpxError(ErrorCode.FleetStateUnavailable, message, {
        cause,
        causes: [storeError(cause)],
        fixes:
          what === 'invalid'
            ? ['give every instance of the fleet the same --state-key-file, and let only mcpx write its keys']
            : ['bring the store back: the instances reconnect by themselves (see /healthz)'],
      }),
    );
  };
}
