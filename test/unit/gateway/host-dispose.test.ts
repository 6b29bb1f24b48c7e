import { describe, expect, it } from 'vitest';
import { GatewayHost } from '../../../src/gateway/host.js';
import { createPermissionGuard, denyingApprover } from '../../../src/permissions/index.js';
import { ServerRegistry } from '../../../src/registry/index.js';

describe('GatewayHost.dispose', () => {
  it('lets go of the registry, so a host replaced on a restart leaves no listener behind', () => {
    const registry = new ServerRegistry([], {
      connector: () => Promise.reject(new Error('no server is connected in this test')),
    });
    const live = new Set<unknown>();
    const on = registry.on.bind(registry);
    registry.on = (listener) => {
      live.add(listener);
      const off = on(listener);
      return () => {
        live.delete(listener);
        return off();
      };
    };
    const guard = createPermissionGuard({ level: 'yolo', approver: denyingApprover('a test') });
    const hosts = Array.from(
      { length: 5 },
      () => new GatewayHost({ registry, servers: [], transparent: 'demo', guard }),
    );
    expect(live.size).toBe(5);
    for (const host of hosts) host.dispose();
    expect(live.size).toBe(0);
  });
});
