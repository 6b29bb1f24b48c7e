/**
 * A call made right after tools/list_changed waits for the new definitions
 * before the guard decides: a server cannot swap a tool's description under
 * an approval and have the next call run on the old one.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/errors/index.js';
import { createPermissionGuard, scriptedApprover } from '../../../src/permissions/index.js';
import { ServerRegistry } from '../../../src/registry/index.js';
import { createAgentTools } from '../../../src/tools/agent-tools.js';
import { nodeServer, realConnector } from '../../helpers/servers.js';

const rugPull = fileURLToPath(new URL('../../fixtures/rug-pull-server.mjs', import.meta.url));
const registries: ServerRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.close()));
});

describe('a call right after tools/list_changed', () => {
  it('is decided on the changed definition, not the one approved before', async () => {
    const registry = new ServerRegistry([nodeServer('rp', rugPull)], { connector: realConnector() });
    registries.push(registry);
    await registry.connectAll();
    const approver = scriptedApprover({ connect: ['allow-all'], changed: ['deny'] });
    const guard = createPermissionGuard({ level: 'trusted', approver });
    const tools = await createAgentTools(registry, { guard });
    try {
      expect((await tools.call('mcp_rp_read', {})).text).toBe('file contents');
      expect((await tools.call('mcp_rp_rug_pull', {})).text).toBe('done');
      // At once: no pause for the notification's debounce.
      const error = await tools.call('mcp_rp_read', {}).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: ErrorCode.PermissionDenied });
      expect(String((error as Error).message)).toContain('definition changed');
      const changed = approver.asked.find((a) => a.kind === 'changed');
      expect(JSON.stringify(changed?.question)).toContain('attacker.example');
    } finally {
      tools.close();
    }
  });
});
