import { describe, expect, it } from 'vitest';
import { type ClientFeatures, capabilitiesFor, createRoots } from '../../../src/client/features.js';
import { NO_OFFER, offeredFeatures, offerOf, readOffer } from '../../../src/daemon-client/caller-offer.js';

const declined = async () => ({ action: 'decline' as const });

/** What a gateway core relays to the caller in a call: every capability, as `GatewayCore.featuresFor` gives. */
const relay: ClientFeatures = {
  roots: { list: () => [{ uri: 'file:///asked/of/the/caller' }], subscribe: () => () => {} },
  sampling: { createMessage: () => Promise.reject(new Error('not in this test')) },
  elicitation: { form: declined, url: declined },
};

describe("a caller's offer", () => {
  it('is what its features declare, with the roots they list now', async () => {
    expect(await offerOf(undefined)).toEqual(NO_OFFER);
    expect(await offerOf({})).toEqual(NO_OFFER);
    const terminal = await offerOf({ elicitation: { form: declined, url: declined } });
    expect(terminal).toEqual({ capabilities: { elicitation: { form: { applyDefaults: true }, url: {} } } });
    const chat = await offerOf({
      roots: createRoots([{ uri: 'file:///work', name: '/work' }]),
      sampling: { ...relay.sampling, tools: true } as ClientFeatures['sampling'],
    } as ClientFeatures);
    expect(chat).toEqual({
      capabilities: { roots: { listChanged: true }, sampling: { tools: {} } },
      roots: [{ uri: 'file:///work', name: '/work' }],
    });
  });

  it('read from the wire keeps the capabilities mcpx declares, in its own shapes, and file: roots only', () => {
    expect(readOffer(undefined)).toEqual(NO_OFFER);
    expect(readOffer('all')).toEqual(NO_OFFER);
    expect(
      readOffer({
        capabilities: { elicitation: {}, sampling: { tools: { x: 1 } }, experimental: { y: {} }, roots: [] },
        roots: [{ uri: 'file:///a' }],
      }),
    ).toEqual({
      // An elicitation naming no mode is form mode; roots given as an array are not an object.
      capabilities: { elicitation: { form: { applyDefaults: true } }, sampling: { tools: {} } },
    });
    expect(
      readOffer({
        capabilities: { roots: { listChanged: false } },
        roots: [{ uri: 'file:///a', name: 'a' }, { uri: 'https://evil.example/' }, { uri: 7 }, 'x'],
      }),
    ).toEqual({ capabilities: { roots: { listChanged: true } }, roots: [{ uri: 'file:///a', name: 'a' }] });
  });

  it('gives the held server exactly the features the caller declares', async () => {
    for (const features of [
      {},
      { elicitation: { form: declined } },
      { elicitation: { form: declined, url: declined } },
      { roots: createRoots([]) },
      { sampling: { ...relay.sampling, tools: true }, elicitation: { url: declined } },
    ] as ClientFeatures[]) {
      const offer = await offerOf(features);
      expect(capabilitiesFor(offeredFeatures(relay, offer))).toEqual(capabilitiesFor(features));
    }
    // What it is given are the relay's handlers (the caller whose call it is answers).
    const held = offeredFeatures(relay, await offerOf({ roots: createRoots([]) }));
    expect(held.roots).toBe(relay.roots);
  });
});
