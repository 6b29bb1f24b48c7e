import type { LoggingLevel } from '@modelcontextprotocol/server';
import type { ClientFeatures } from '../client/features.js';
import type { ServerLogEvent } from '../client/index.js';
import type { ServerConfig } from '../config/index.js';
import type { NobodyApprover } from '../permissions/index.js';
import type { GatewayCore } from './core.js';
import { gatewayApprover } from './refusal.js';

/**
 * Who a gateway's host can ask: the gateway's client. Permission questions get
 * the gateway's refusal (nobody waits on a person), and a server's sampling,
 * elicitation and roots go to the client whose call is in flight on it.
 */
export interface GatewayAsk {
  readonly who: string;
  readonly approver: NobodyApprover;
  readonly features: (server: ServerConfig) => ClientFeatures;
}

/**
 * What a gateway's host is made with (`createHost({ ...wiring })`), handed to
 * `createGateway` too, which it then serves: the host is made before the gateway, so
 * both are bound to it late.
 */
export interface GatewayWiring {
  readonly ask: GatewayAsk;
  /** The servers' log messages, relayed to the gateway's clients. */
  readonly serverLogs: { readonly listener: (event: ServerLogEvent) => void; readonly level: LoggingLevel };
}

const cores = new WeakMap<GatewayWiring, (core: GatewayCore) => void>();

/** A wiring for one gateway, bound to it by `createGateway(host, { wiring })`. */
export function gatewayWiring(): GatewayWiring {
  let core: GatewayCore | undefined;
  const wiring: GatewayWiring = {
    ask: {
      who: "the gateway's client",
      approver: gatewayApprover(),
      // Nothing connects before the gateway is made; a server that did would be offered nothing.
      features: (server) => core?.featuresFor(server.name) ?? {},
    },
    serverLogs: { listener: (event) => core?.serverLog(event), level: 'info' },
  };
  cores.set(wiring, (made) => {
    core = made;
  });
  return wiring;
}

/** Bind `wiring` to the gateway's core (once: a wiring serves one gateway). */
export function wire(wiring: GatewayWiring, core: GatewayCore): void {
  cores.get(wiring)?.(core);
}
