import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  isSealedState,
  type RoundBinding,
  RoundSeal,
  type SealRefusal,
  stableJson,
} from '../../../src/gateway/sealed-state.js';

const key = randomBytes(32);
const binding: RoundBinding = {
  owner: 'tools/call\0new__ask\0credentials\0{"name":"alice"}',
  method: 'tools/call',
  target: 'new__ask',
  args: { city: 'Paris', days: [1, 2] },
};
const round = { upstreamState: 'upstream-own-state', keys: ['user_name'], rounds: 1 };

function refusal(open: () => unknown): SealRefusal | undefined {
  try {
    open();
    return undefined;
  } catch (error) {
    return (error as { reason?: SealRefusal }).reason;
  }
}

describe('RoundSeal', () => {
  it('opens what it sealed, for the same request, on another instance with the same key', () => {
    const state = new RoundSeal(key, 60_000).seal(round, binding);
    expect(isSealedState(state)).toBe(true);
    // Sealed, not signed: the upstream's state and the owner are not readable by the client.
    const body = Buffer.from(state.slice(state.indexOf('.') + 1), 'base64url').toString('latin1');
    expect(body).not.toContain('upstream-own-state');
    expect(body).not.toContain('alice');
    const other = new RoundSeal(Buffer.from(key), 60_000);
    expect(other.open(state, binding)).toEqual(round);
    // The same arguments in another key order are the same call.
    expect(other.open(state, { ...binding, args: { days: [1, 2], city: 'Paris' } })).toEqual(round);
  });

  it('refuses a state changed by one bit', () => {
    const seal = new RoundSeal(key, 60_000);
    const state = seal.seal(round, binding);
    const raw = Buffer.from(state.slice('mcpx1.'.length), 'base64url');
    for (const at of [0, 14, raw.length - 1]) {
      const tampered = Buffer.from(raw);
      tampered[at] = (tampered[at] as number) ^ 1;
      expect(refusal(() => seal.open(`mcpx1.${tampered.toString('base64url')}`, binding))).toBe('seal');
    }
    expect(refusal(() => seal.open('mcpx1.AAAA', binding))).toBe('malformed');
    expect(refusal(() => seal.open('not-sealed', binding))).toBe('malformed');
  });

  it('refuses a state sealed under another key (an instance without the shared key file)', () => {
    const state = new RoundSeal(key, 60_000).seal(round, binding);
    expect(refusal(() => new RoundSeal(randomBytes(32), 60_000).open(state, binding))).toBe('seal');
    // No key given: a random one per process, which no other process shares.
    expect(refusal(() => new RoundSeal(undefined, 60_000).open(state, binding))).toBe('seal');
  });

  it('refuses another owner, method, target, or arguments', () => {
    const seal = new RoundSeal(key, 60_000);
    const state = seal.seal(round, binding);
    expect(refusal(() => seal.open(state, { ...binding, owner: `${binding.owner}x` }))).toBe('owner');
    expect(refusal(() => seal.open(state, { ...binding, method: 'prompts/get' }))).toBe('method');
    expect(refusal(() => seal.open(state, { ...binding, target: 'new__other' }))).toBe('target');
    expect(refusal(() => seal.open(state, { ...binding, args: { city: 'Lyon', days: [1, 2] } }))).toBe(
      'arguments',
    );
  });

  it('refuses a state past its expiry', () => {
    let now = 1_000_000;
    const seal = new RoundSeal(key, 5_000, () => now);
    const state = seal.seal(round, binding);
    now += 4_999;
    expect(seal.open(state, binding)).toEqual(round);
    now += 1;
    expect(refusal(() => seal.open(state, binding))).toBe('expired');
  });

  it('refuses key material shorter than 256 bits', () => {
    expect(() => new RoundSeal(randomBytes(31), 60_000)).toThrow(RangeError);
  });
});

describe('stableJson', () => {
  it('orders object keys at every depth and drops undefined members', () => {
    expect(stableJson({ b: 1, a: { d: [{ y: 1, x: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[{"x":2,"y":1}]},"b":1}',
    );
  });
});
