/**
 * The per-client limit on requests uploading at once (`client-limit.ts`), counted across the
 * fleet: a client's slow uploads through every instance share one bound. Deciding stays
 * synchronous, with no store round trip on a request's way: an instance refuses when its own count
 * for the client plus the other instances' (as last read from the store, at most 1 s old; a stale
 * one is read again in the background) reaches the bound. Only an upload still arriving after
 * `SLOW_MS` takes a slot in the store — a sorted set per client, `${prefix}inflight:<digest>`,
 * scored by when the slot lapses — so a burst of quick requests never touches Redis, and the slots
 * of an instance that died (SIGKILL) lapse by themselves after `SLOT_TTL_MS` instead of locking
 * its clients out.
 *
 * The store down (or a command failing): each instance counts its own, as one instance does, and
 * `/healthz` says the limits are the instance's (`limits: "instance"`).
 */
import { createHash } from 'node:crypto';
import type { FleetState } from '../fleet/index.js';
import type { ClientLimit, ClientSlot } from './client-limit.js';

/** How long a slot counts at most: past it, a slot of a dead instance is free again. */
const SLOT_TTL_MS = 30_000;
/** An upload still arriving after this is a slow one, counted in the store for the fleet. */
const SLOW_MS = 200;
/** How old the other instances' count may be before it is read again. */
const FRESH_MS = 1_000;

// Drop the lapsed slots, add this one (when given), and count the slots of the other instances.
const COUNT_SCRIPT = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[3] ~= '' then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
local others = 0
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if string.sub(member, 1, #ARGV[4]) ~= ARGV[4] then others = others + 1 end
end
return others
`;

/** The fleet's {@link ClientLimit}, and which count it keeps now (`fleet`, or `instance` while the store is down). */
export interface FleetClientLimit extends ClientLimit {
  enter(client: string): ClientSlot;
  scope(): 'fleet' | 'instance';
}

/** A {@link FleetClientLimit} of `max` uploads per client at once across the fleet. */
export function fleetClientLimit(fleet: FleetState, max: number): FleetClientLimit {
  const mine = new Map<string, number>();
  const others = new Map<string, { count: number; at: number }>();
  const own = `${fleet.instanceId}:`;
  let slots = 0;
  let failing = false;
  const keyOf = (client: string) =>
    `${fleet.prefix}inflight:${createHash('sha256').update(client).digest('base64url')}`;
  const count = (client: string, member = '') =>
    fleet.redis
      .eval(COUNT_SCRIPT, 1, keyOf(client), Date.now(), SLOT_TTL_MS, member, own)
      .then((n) => {
        failing = false;
        others.set(client, { count: Number(n) || 0, at: Date.now() });
      })
      .catch(() => {
        failing = true;
        others.delete(client);
      });
  const scope = () => (fleet.status().up && !failing ? 'fleet' : 'instance');
  return {
    scope,
    enter(client) {
      const fleetWide = scope() === 'fleet' || fleet.status().up;
      const seen = others.get(client);
      if (fleetWide && (!seen || Date.now() - seen.at > FRESH_MS)) void count(client);
      const elsewhere = fleetWide && !failing ? (seen?.count ?? 0) : 0;
      const now = mine.get(client) ?? 0;
      if (now + elsewhere >= max) return undefined;
      mine.set(client, now + 1);
      let member: string | undefined;
      const slow = fleetWide
        ? setTimeout(() => {
            member = `${own}${++slots}`;
            void count(client, member);
          }, SLOW_MS)
        : undefined;
      slow?.unref();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        clearTimeout(slow);
        const left = (mine.get(client) ?? 1) - 1;
        if (left > 0) mine.set(client, left);
        else mine.delete(client);
        // Not waited for: a release the store misses lapses with its slot.
        if (member) fleet.redis.zrem(keyOf(client), member).catch(() => {});
      };
    },
  };
}
