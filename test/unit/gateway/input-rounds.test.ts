import { CLIENT_CAPABILITIES_META_KEY, type ServerContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { InputRounds } from '../../../src/gateway/input-rounds.js';

/** The parts of a request's context InputRounds reads: one round of a 2026-07-28 client's call. */
function roundOf(state?: string, inputResponses?: Record<string, unknown>): ServerContext {
  return {
    mcpReq: {
      method: 'tools/call',
      signal: new AbortController().signal,
      envelope: { [CLIENT_CAPABILITIES_META_KEY]: { elicitation: { form: {} } } },
      requestState: () => state,
      ...(inputResponses ? { inputResponses } : {}),
    },
  } as unknown as ServerContext;
}

const question = { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: {} } } as never;

describe('InputRounds', () => {
  it('refuses a state past its time, and the waiting question is cancelled', async () => {
    const rounds = new InputRounds(30);
    let asked: Promise<unknown> | undefined;
    const first = (await rounds.round(roundOf(), 'owner', async (exchange) => {
      asked = exchange.ask(question, undefined, 'name');
      return (await asked) as string;
    })) as { resultType: string; requestState: string; inputRequests: Record<string, unknown> };
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests)).toEqual(['name']);
    await expect(asked).rejects.toThrow(/did not answer the input requests in time/);
    expect(rounds.size).toBe(0);
    await expect(
      rounds.round(roundOf(first.requestState, { name: { action: 'accept' } }), 'owner', async () => 'new'),
    ).rejects.toThrow(/unknown, already used, expired, or from another client/);
  });

  it('resumes only for its owner, once', async () => {
    const rounds = new InputRounds();
    const start = async (exchange: { ask: (q: never, s?: AbortSignal, k?: string) => Promise<unknown> }) =>
      JSON.stringify(await exchange.ask(question, undefined, 'name'));
    const first = (await rounds.round(roundOf(), 'alice', start)) as { requestState: string };
    const answer = { name: { action: 'accept', content: { name: 'Alice' } } };
    await expect(rounds.round(roundOf(first.requestState, answer), 'mallory', start)).rejects.toThrow(
      /from another client/,
    );
    expect(await rounds.round(roundOf(first.requestState, answer), 'alice', start)).toBe(
      JSON.stringify(answer.name),
    );
    await expect(rounds.round(roundOf(first.requestState, answer), 'alice', start)).rejects.toThrow(
      /already used/,
    );
  });
});

describe('InputRounds, stateless (a 2026-07-28 upstream)', () => {
  const key = new Uint8Array(32).fill(7);
  const request = { target: 'new__ask', args: { city: 'Paris' } };
  const upstreamAsks = {
    resultType: 'input_required',
    inputRequests: { user_name: question },
    requestState: 'upstream-state',
  } as never;

  it('parks nothing, and the retry resumes on another instance holding the same key', async () => {
    const a = new InputRounds(60_000, key);
    const first = (await a.round(
      roundOf(),
      'alice',
      async (_exchange, stateless) => {
        expect(stateless?.resume).toBeUndefined();
        return stateless?.pass(upstreamAsks, 1);
      },
      request,
    )) as { resultType: string; requestState: string; inputRequests: Record<string, unknown> };
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests)).toEqual(['user_name']);
    expect(first.requestState).not.toContain('upstream-state');
    expect(a.size).toBe(0);

    const b = new InputRounds(60_000, key);
    const answers = {
      user_name: { action: 'accept', content: { name: 'Alice' } },
      extra: { action: 'decline' },
    };
    const resumed = await b.round(
      roundOf(first.requestState, answers),
      'alice',
      async (_exchange, stateless) => stateless?.resume,
      request,
    );
    // Only the answers to what was asked go upstream, with the upstream's own state.
    expect(resumed).toEqual({
      round: { inputResponses: { user_name: answers.user_name }, requestState: 'upstream-state' },
      rounds: 1,
    });
    await expect(
      b.round(roundOf(first.requestState, answers), 'mallory', async () => 'stolen', request),
    ).rejects.toThrow(/from another client/);
    await expect(
      b.round(roundOf(first.requestState, answers), 'alice', async () => 'moved', {
        ...request,
        args: { city: 'Lyon' },
      }),
    ).rejects.toThrow(/call again without requestState/);
    // An instance with its own random key cannot open it: the clear "start over" error.
    await expect(
      new InputRounds().round(roundOf(first.requestState, answers), 'alice', async () => 'x', request),
    ).rejects.toThrow(/unknown, already used, expired, or from another client/);
  });

  it('passes answers a first request brings (no requestState) to the upstream, as they came', async () => {
    const rounds = new InputRounds(60_000, key);
    const answers = { user_name: { action: 'accept', content: { name: 'Alice' } }, extra: { ok: 1 } };
    const resumed = await rounds.round(
      roundOf(undefined, answers),
      'alice',
      async (_exchange, stateless) => stateless?.resume,
      request,
    );
    expect(resumed).toEqual({ round: { inputResponses: answers }, rounds: 0 });
    const plain = await rounds.round(
      roundOf(),
      'alice',
      async (_e, stateless) => stateless?.resume ?? 'none',
      request,
    );
    expect(plain).toBe('none');
  });
});
