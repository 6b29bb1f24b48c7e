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

describe('tools that only allow tasks (taskSupport "optional")', () => {
  it('are called directly, without a task, even on a server that runs tool tasks', async () => {
    // An in-process SDK server: the tasks capability and a per-tool taskSupport are all it needs.
    const { InMemoryTransport, Server } = await import('@modelcontextprotocol/server');
    const { connectServer } = await import('../../../src/client/server-connection.js');
    const { SERVER_DEFAULTS } = await import('../../../src/config/entry/server-defaults.js');
    const seen: unknown[] = [];
    const server = new Server(
      { name: 'optional-tasks', version: '1.0.0' },
      { capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } } as never },
    );
    server.setRequestHandler('tools/list', async () => ({
      tools: [
        {
          name: 'maybe_slow',
          inputSchema: { type: 'object' },
          execution: { taskSupport: 'optional' },
        } as never,
      ],
    }));
    server.setRequestHandler('tools/call', async (request) => {
      seen.push(request.params);
      return { content: [{ type: 'text', text: 'direct' }] };
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const c = await track(
      connectServer(
        {
          name: 'optional',
          transport: 'stdio',
          command: 'none',
          ...SERVER_DEFAULTS,
          args: [],
          protocol: 'legacy',
          origin: { layer: 'explicit', file: '/test/mcp.json', line: 1 },
          fingerprint: 'test-optional',
        },
        { createTransport: () => clientSide },
      ),
    );
    // The server does declare tool tasks, so the choice was made by the tool's taskSupport.
    expect(c.capabilities).toMatchObject({ tasks: { requests: { tools: { call: {} } } } });
    const statuses: TaskStatusEvent[] = [];
    const result = await c.callTool('maybe_slow', {}, { onTaskStatus: (e) => statuses.push(e) });
    expect(result.content?.[0]).toEqual({ type: 'text', text: 'direct' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toHaveProperty('task');
    expect(statuses).toEqual([]);
    await server.close();
  });
});
