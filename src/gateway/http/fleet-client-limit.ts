/**
 * The per-client limit on requests in flight (`http/client-limit.ts`), counted across the fleet:
 * a client's requests through every instance share one bound. Each request holds a member of a
 * sorted set per client, `${prefix}inflight:<digest of the client>`, scored by when it expires,
 * so the slots of an instance that died (SIGKILL, a lost machine) lapse by themselves after
 * `SLOT_TTL_MS` instead of locking its clients out; the set itself expires with its last slot.
 *
 * The store down (or a command failing): each instance falls back to counting its own, as one
 * instance does, and `/healthz` says the limits are the instance's (`limits: "instance"`).
 */
import { createHash } from 'node:crypto';
import type { FleetState } from '../fleet/index.js';
import { type ClientLimit, type ClientSlot, createClientLimit } from './client-limit.js';

/** How long a request's slot counts at most: past it, a slot of a dead instance is free again. */
const SLOT_TTL_MS = 30_000;

// Drop the lapsed slots, then take one if the client is under its bound: one step, so two
// instances' requests never both take the last slot.
const ENTER_SCRIPT = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** The fleet's {@link ClientLimit}, and which count it keeps now (`fleet`, or `instance` while the store is down). */
export interface FleetClientLimit extends ClientLimit {
  scope(): 'fleet' | 'instance';
}

/** A {@link FleetClientLimit} of `max` requests per client in flight across the fleet. */
export function fleetClientLimit(fleet: FleetState, max: number): FleetClientLimit {
  const own = createClientLimit(max);
  let slots = 0;
  let failing = false;
  const enterFleet = async (client: string): Promise<ClientSlot> => {
    const key = `${fleet.prefix}inflight:${createHash('sha256').update(client).digest('base64url')}`;
    const member = `${fleet.instanceId}:${++slots}`;
    let taken: unknown;
    try {
      taken = await fleet.redis.eval(ENTER_SCRIPT, 1, key, Date.now(), max, SLOT_TTL_MS, member);
      failing = false;
    } catch {
      failing = true;
      return own.enter(client);
    }
    if (taken !== 1) return undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Not waited for: a release the store misses lapses with its slot's expiry.
      fleet.redis.zrem(key, member).catch(() => {});
    };
  };
  const scope = () => (fleet.status().up && !failing ? 'fleet' : 'instance');
  return {
    scope,
    enter: (client) => (fleet.status().up ? enterFleet(client) : own.enter(client)),
  };
}
