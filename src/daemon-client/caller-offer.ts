/**
 * What a caller of the keep-alive daemon can answer for one server, and the
 * client features a held server gets from it. A 2025-11-25 server learns its
 * client's capabilities once, at `initialize`, and may shape itself by them
 * (server-everything lists a tool per capability; server-filesystem takes
 * roots in place of its configured folders): a held server is therefore told
 * exactly what its callers' front ends declare when they start it directly,
 * and the daemon keeps one instance per distinct offer (`daemon/instance-pool.ts`).
 */
import type { ClientCapabilities, Root } from '@modelcontextprotocol/client';
import { type ClientFeatures, capabilitiesFor } from '../client/features.js';

/** The questions a caller can answer (the capabilities its own connection declares) and its roots. */
export interface CallerOffer {
  readonly capabilities: Pick<ClientCapabilities, 'roots' | 'sampling' | 'elicitation'>;
  /** Its roots as it answers them outside a call; absent when it declares none. */
  readonly roots?: readonly Root[];
}

/** A caller that can answer nothing (an older mcpx says nothing of it). */
export const NO_OFFER: CallerOffer = { capabilities: {} };

/** What a caller with these features offers: the capabilities they declare, and the roots they list now. */
export async function offerOf(features: ClientFeatures | undefined): Promise<CallerOffer> {
  const { roots, sampling, elicitation } = capabilitiesFor(features);
  const capabilities = {
    ...(roots ? { roots } : {}),
    ...(sampling ? { sampling } : {}),
    ...(elicitation ? { elicitation } : {}),
  };
  if (!features?.roots) return { capabilities };
  const listed = await features.roots.list();
  return { capabilities, roots: listed.map(({ uri, name }) => ({ uri, ...(name ? { name } : {}) })) };
}

/**
 * An offer as a caller sent it over the socket (the user's own process, but
 * still only data): the capabilities mcpx knows, in the shapes it declares
 * them, and `file:` roots. Anything else is left out.
 */
export function readOffer(value: unknown): CallerOffer {
  if (typeof value !== 'object' || value === null) return NO_OFFER;
  const { capabilities, roots } = value as { capabilities?: unknown; roots?: unknown };
  const given = (typeof capabilities === 'object' && capabilities !== null ? capabilities : {}) as Record<
    string,
    unknown
  >;
  const sampling = objectOrUndefined(given.sampling);
  const elicitation = objectOrUndefined(given.elicitation);
  const modes = elicitation && {
    ...(objectOrUndefined(elicitation.form) ? { form: { applyDefaults: true } } : {}),
    ...(objectOrUndefined(elicitation.url) ? { url: {} } : {}),
  };
  const read: CallerOffer['capabilities'] = {
    ...(objectOrUndefined(given.roots) ? { roots: { listChanged: true } } : {}),
    ...(sampling ? { sampling: objectOrUndefined(sampling.tools) ? { tools: {} } : {} } : {}),
    // An elicitation capability naming no mode is form mode (the spec's rule for older clients).
    ...(modes
      ? { elicitation: (Object.keys(modes).length > 0 ? modes : { form: { applyDefaults: true } }) as never }
      : {}),
  };
  if (!read.roots || !Array.isArray(roots)) return { capabilities: read };
  const files = roots.filter(
    (root): root is Root =>
      typeof root === 'object' &&
      root !== null &&
      typeof root.uri === 'string' &&
      root.uri.startsWith('file:') &&
      (root.name === undefined || typeof root.name === 'string'),
  );
  return { capabilities: read, roots: files.map(({ uri, name }) => ({ uri, ...(name ? { name } : {}) })) };
}

/**
 * The features a held server gets: of `relay` (which asks the caller whose call
 * is in flight, `GatewayCore.featuresFor`) only what `offer` declares, so the
 * server is told what it would be told directly. Roots asked outside any one
 * caller's call (a server asks at start) are the offer's own: every caller of
 * the instance made the same offer.
 */
export function offeredFeatures(relay: ClientFeatures, offer: CallerOffer): ClientFeatures {
  const { roots, sampling, elicitation } = offer.capabilities;
  const modes = (elicitation ?? {}) as { form?: unknown; url?: unknown };
  return {
    ...(roots && relay.roots ? { roots: relay.roots } : {}),
    ...(sampling && relay.sampling
      ? { sampling: { ...relay.sampling, tools: (sampling as { tools?: unknown }).tools !== undefined } }
      : {}),
    ...(elicitation && relay.elicitation
      ? {
          elicitation: {
            ...(modes.form && relay.elicitation.form ? { form: relay.elicitation.form } : {}),
            ...(modes.url && relay.elicitation.url ? { url: relay.elicitation.url } : {}),
          },
        }
      : {}),
  };
}

function objectOrUndefined(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
