import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
} from '@modelcontextprotocol/client';
import type { ProtocolEra, RequestControl } from './types.js';

/** What a connection adds to each request's `_meta`. */
export interface MetaSource {
  /** 2026-07-28 has no logging/setLevel: the level rides on each request's `_meta`. */
  readonly logLevel: LoggingLevel | undefined;
  readonly era: ProtocolEra;
  /** The capabilities the connection declared (its handlers). */
  readonly declared: ClientCapabilities;
}

/**
 * One request's `_meta`: its trace context, the log level (2026-07-28), and on 2026-07-28 the
 * capabilities of the answerer behind this request, within what the connection declared.
 */
export function requestMeta(
  control: RequestControl | undefined,
  { logLevel, era, declared }: MetaSource,
): { _meta?: Record<string, unknown> } {
  const meta: Record<string, unknown> = { ...control?.traceContext };
  if (logLevel && control?.logs !== false) meta[LOG_LEVEL_META_KEY] = logLevel;
  const answerers = control?.inputCapabilities;
  if (answerers && era === 'modern') {
    // The envelope's own key wins over the SDK's: this request declares what its answerer can do.
    const { sampling: _s, elicitation: _e, roots: _r, extensions: _x, ...rest } = declared;
    const extensions = sharedExtensions(declared.extensions, answerers.extensions);
    meta[CLIENT_CAPABILITIES_META_KEY] = {
      ...rest,
      ...(answerers.sampling && declared.sampling ? { sampling: answerers.sampling } : {}),
      ...(answerers.elicitation && declared.elicitation ? { elicitation: answerers.elicitation } : {}),
      ...(answerers.roots && declared.roots ? { roots: answerers.roots } : {}),
      ...(extensions ? { extensions } : {}),
    };
  }
  return Object.keys(meta).length > 0 ? { _meta: meta } : {};
}

/**
 * The extensions both the connection declared and the answerer behind the request supports
 * (a gateway's client that shows MCP Apps), with the answerer's settings; undefined if none.
 */
function sharedExtensions(
  declared: ClientCapabilities['extensions'],
  answerer: ClientCapabilities['extensions'],
): ClientCapabilities['extensions'] {
  if (!declared || !answerer) return undefined;
  const shared = Object.entries(answerer).filter(([id]) => Object.hasOwn(declared, id));
  return shared.length > 0 ? Object.fromEntries(shared) : undefined;
}
