import { describe, expect, it } from 'vitest';
import { GatewayCore } from '../../../src/gateway/core.js';
import { createPermissionGuard, denyingApprover } from '../../../src/permissions/index.js';
import { ServerRegistry } from '../../../src/registry/index.js';

describe('GatewayCore.dispose', () => {
  it('lets go of the registry, so a core replaced on a restart leaves no listener behind', () => {
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
    const cores = Array.from(
      { length: 5 },
      () => new GatewayCore({ registry, servers: [], transparent: 'demo', guard }),
    );
    expect(live.size).toBe(5);
    for (const core of cores) core.dispose();
    expect(live.size).toBe(0);
  });
});
