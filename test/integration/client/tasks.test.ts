import { afterEach, describe, expect, it } from 'vitest';
import type { TaskStatusEvent } from '../../../src/client/types.js';
import { McpxError } from '../../../src/errors/index.js';
import { connect, everythingPath, nodeServer, trackConnections } from '../../helpers/servers.js';

const { track, closeAll } = trackConnections();
afterEach(closeAll);

const everything = () => nodeServer('everything', everythingPath, { args: [everythingPath, 'stdio'] });

describe('tools that require task augmentation (server-everything)', () => {
  it('runs simulate-research-query as a task: created, followed, result fetched', async () => {
    const c = await track(connect(everything()));
    const statuses: TaskStatusEvent[] = [];
    const result = await c.callTool(
      'simulate-research-query',
      { topic: 'otters' },
      { onTaskStatus: (e) => statuses.push(e) },
    );
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain('Research Report: otters');
    expect(statuses[0]).toMatchObject({ status: 'working', taskId: expect.any(String) });
    expect(statuses.map((s) => s.statusMessage)).toContain('Synthesizing findings...');
    expect(statuses.at(-1)?.status).toBe('completed');
    expect(new Set(statuses.map((s) => s.taskId)).size).toBe(1);
  }, 60_000);

  it('sends tasks/cancel when the caller aborts, and reports a cancellation', async () => {
    const c = await track(connect(everything()));
    const statuses: TaskStatusEvent[] = [];
    const controller = new AbortController();
    const call = c.callTool(
      'simulate-research-query',
      { topic: 'otters' },
      {
        signal: controller.signal,
        onTaskStatus: (e) => {
          statuses.push(e);
          if (e.status === 'working') controller.abort();
        },
      },
    );
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpxError);
    expect((error as McpxError).code).toBe('CANCELLED');
    // The last status is the server's answer to tasks/cancel.
    expect(statuses.at(-1)?.status).toBe('cancelled');
    // The connection is still usable afterwards.
    const echo = await c.callTool('echo', { message: 'after' });
    expect(JSON.stringify(echo.content)).toContain('after');
  }, 60_000);
});
