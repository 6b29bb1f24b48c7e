/**
 * The public API's shape, checked by the type checker (`npm run check` runs tsc over test/) and
 * at run time: 'mcpx' is what a `createHost` program needs, and the pieces that go around the
 * host (its trust, its one guard) are in 'mcpx/low-level' only.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as main from '../../src/index.js';
import {
  type AgentToolSet,
  type AgentToolsOptions,
  type Ask,
  type Catalogue,
  createHost,
  type Host,
  type HostAuditOptions,
  type HostEvent,
  type HostListener,
  type HostOptions,
  type LoadedConfig,
  type McpxError,
  type PermissionLevel,
  type ServerConfig,
  type ServerConnection,
} from '../../src/index.js';
import type {
  createAgentTools,
  createPermissionGuard,
  defaultConnector,
  loadConfig,
  PermissionGuard,
  ServerRegistry,
} from '../../src/low-level.js';
import * as lowLevel from '../../src/low-level.js';

// Importing from 'mcpx' what goes around the host is a type error (each directive would be an
// unused one, itself an error, were the name exported again).
type MovedFromMain = [
  // @ts-expect-error: the registry goes around the host; it is low-level.
  import('../../src/index.js').ServerRegistry,
  // @ts-expect-error: a guard of a program's own goes around the host's.
  typeof import('../../src/index.js').createPermissionGuard,
  // @ts-expect-error: agent tools over a registry with a guard of the program's own.
  typeof import('../../src/index.js').createAgentTools,
  // @ts-expect-error: the config loader, without the host's questions.
  typeof import('../../src/index.js').loadConfig,
  // @ts-expect-error: the connector, under the host.
  typeof import('../../src/index.js').defaultConnector,
];

/** What a program could use to go around `createHost`, in 'mcpx/low-level' only. */
const underTheHost = [
  'ServerRegistry',
  'createPermissionGuard',
  'createAgentTools',
  'loadConfig',
  'validateConfig',
  'resolveMcpxHome',
  'defaultConnector',
  'promptMessages',
  'exportServers',
  'connectServer',
] as const;

describe('the main entry', () => {
  it('offers createHost, which takes HostOptions and returns a Host', () => {
    expectTypeOf(createHost).toEqualTypeOf<(options?: HostOptions) => Host>();
    expectTypeOf<HostOptions['ask']>().toEqualTypeOf<Ask | undefined>();
    expectTypeOf<HostOptions['permission']>().toEqualTypeOf<PermissionLevel | undefined>();
    expectTypeOf<HostOptions['audit']>().toEqualTypeOf<HostAuditOptions | false | undefined>();
    expectTypeOf<HostOptions['adhoc']>().toEqualTypeOf<ServerConfig | undefined>();
    expect(typeof main.createHost).toBe('function');
  });

  it("gives what the host's methods return types of its own", () => {
    expectTypeOf<Host['config']>().returns.toEqualTypeOf<Promise<LoadedConfig>>();
    expectTypeOf<Host['servers']>().returns.toEqualTypeOf<Promise<ServerConfig[]>>();
    expectTypeOf<Host['connect']>().returns.toEqualTypeOf<Promise<ServerConnection>>();
    expectTypeOf<Host['failures']>().returns.toEqualTypeOf<Promise<ReadonlyMap<string, McpxError>>>();
    expectTypeOf<Host['agentTools']>()
      .parameter(0)
      .toEqualTypeOf<Omit<AgentToolsOptions, 'guard'> | undefined>();
    expectTypeOf<Host['agentTools']>().returns.toEqualTypeOf<Promise<AgentToolSet>>();
    expectTypeOf<Host['catalogue']>().returns.toEqualTypeOf<Promise<Catalogue<Tool>>>();
    expectTypeOf<Host['on']>().parameter(0).toEqualTypeOf<HostListener>();
    expectTypeOf<Extract<HostEvent, { type: 'failure' }>['error']>().toEqualTypeOf<McpxError>();
    // The registry and the guard a host holds are low-level types, reached through the host.
    expectTypeOf<Host['registry']>().returns.toEqualTypeOf<Promise<ServerRegistry>>();
    expectTypeOf<Host['guard']>().returns.toEqualTypeOf<Promise<PermissionGuard>>();
  });

  it('leaves out what goes around the host, which mcpx/low-level offers', () => {
    // The type-only imports above marked @ts-expect-error are what the type checker sees; these
    // are the values a JavaScript program sees.
    const mainNames = Object.keys(main);
    const lowLevelNames = Object.keys(lowLevel);
    for (const name of underTheHost) {
      expect(mainNames, `'mcpx' exports ${name}`).not.toContain(name);
      expect(lowLevelNames, `'mcpx/low-level' lacks ${name}`).toContain(name);
    }
    expectTypeOf(lowLevel.ServerRegistry).toEqualTypeOf<typeof ServerRegistry>();
    expectTypeOf(lowLevel.createPermissionGuard).toEqualTypeOf<typeof createPermissionGuard>();
    expectTypeOf(lowLevel.createAgentTools).toEqualTypeOf<typeof createAgentTools>();
    expectTypeOf(lowLevel.loadConfig).toEqualTypeOf<typeof loadConfig>();
    expectTypeOf(lowLevel.defaultConnector).toEqualTypeOf<typeof defaultConnector>();
    // Each name that failed to import above is `any`.
    expectTypeOf<MovedFromMain[number]>().toBeAny();
  });
});
