/**
 * What passes through `mcpx serve` per client: progress, cancellation (one
 * client's cancel leaves another's call alone), sampling and elicitation asked
 * by an upstream during a call and answered by the calling client, list
 * changes, and SIGTERM draining the calls in flight.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { LOG_LEVEL_META_KEY } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cancelLoggingWorld, firstText, type GatewayWorld, type RunningGateway } from '../helpers/gateway.js';
import { everythingPath } from '../helpers/servers.js';

let world: GatewayWorld;
let gateway: RunningGateway;
let cancellations: () => Promise<number>;

beforeAll(async () => {
  ({ world, cancellations } = await cancelLoggingWorld({
    everything: { command: process.execPath, args: [everythingPath] },
  }));
}, 60_000);

afterEach(() => world.stopAll());
afterAll(() => world?.close());

describe.each(['legacy', 'modern'] as const)('a %s client', (era) => {
  it('sees progress, and its cancel reaches the upstream while another client finishes', async () => {
    gateway = await world.serve();
    const [one, two] = await Promise.all([world.client(gateway.url, era), world.client(gateway.url, era)]);
    const before = await cancellations();
    const progress: number[] = [];
    const controller = new AbortController();
    const cancelled = one.callTool(
      { name: 'local__slow_operation', arguments: { steps: 40, delay_ms: 50 } },
      {
        signal: controller.signal,
        onprogress: (p) => {
          progress.push(p.progress);
          if (progress.length === 2) controller.abort();
        },
      },
    );
    const finished = two.callTool(
      { name: 'local__slow_operation', arguments: { steps: 8, delay_ms: 50 } },
      { onprogress: () => {} },
    );
    await expect(cancelled).rejects.toThrow();
    expect(progress.slice(0, 2)).toEqual([1, 2]);
    const result = await finished;
    expect(result.isError).toBeFalsy();
    expect(firstText(result)).toMatch(/8/);
    // The upstream saw exactly one cancellation: client one's.
    for (let i = 0; i < 100 && (await cancellations()) === before; i++) await delay(50);
    expect((await cancellations()) - before).toBe(1);
  });
});

describe('log messages from an upstream during a call', () => {
  it.each(['legacy', 'modern'] as const)(
    'reach the calling %s client, the logger naming the server',
    async (era) => {
      gateway = await world.serve();
      const client = await world.client(gateway.url, era);
      const logs: { level: string; logger?: string; data: unknown }[] = [];
      client.setNotificationHandler('notifications/message', (n) => {
        logs.push(n.params);
      });
      // 2025: logging/setLevel; 2026-07-28: the level rides on each request's _meta.
      if (era === 'legacy') await client.setLoggingLevel('debug');
      await client.callTool({
        name: 'local__log',
        arguments: { message: `hello ${era}`, level: 'warning' },
        ...(era === 'modern' ? { _meta: { [LOG_LEVEL_META_KEY]: 'debug' } } : {}),
      });
      for (let i = 0; i < 40 && !logs.some((l) => l.data === `hello ${era}`); i++) await delay(50);
      expect(logs).toContainEqual(expect.objectContaining({ level: 'warning', data: `hello ${era}` }));
      expect(logs.find((l) => l.data === `hello ${era}`)?.logger).toMatch(/^local/);
    },
  );
});

describe('questions from an upstream during a call', () => {
  it('sampling and elicitation go to the client that made the call', async () => {
    gateway = await world.serve();
    const asked: string[] = [];
    const client = await world.client(gateway.url, 'legacy', {
      capabilities: { sampling: {}, elicitation: { form: {} } },
    });
    client.setRequestHandler('sampling/createMessage', async (request) => {
      asked.push('sampling');
      const first = request.params.messages[0]?.content as { text?: string };
      return {
        model: 'test-model',
        role: 'assistant',
        content: { type: 'text', text: `echo: ${first.text}` },
      };
    });
    client.setRequestHandler('elicitation/create', async () => {
      asked.push('elicitation');
      return { action: 'decline' };
    });
    const sampled = await client.callTool({
      name: 'everything__trigger-sampling-request',
      arguments: { prompt: 'ping', maxTokens: 10 },
    });
    expect(firstText(sampled)).toMatch(/test-model/);
    const elicited = await client.callTool({
      name: 'everything__trigger-elicitation-request',
      arguments: {},
    });
    expect(JSON.stringify(elicited.content)).toMatch(/declined/);
    expect(asked).toEqual(['sampling', 'elicitation']);
  });
});

describe('a list change upstream', () => {
  it.each(['legacy', 'modern'] as const)('reaches a %s client as a notification', async (era) => {
    gateway = await world.serve();
    const client = await world.client(gateway.url, era);
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler('notifications/tools/list_changed', () => resolve());
    });
    if (era === 'modern') await client.listen?.({ toolsListChanged: true }).catch(() => undefined);
    await client.callTool({ name: 'local__add_tool', arguments: { name: `added_${era}` } });
    await changed;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain(`local__added_${era}`);
  });
});

describe('resource subscriptions and completions', () => {
  it.each(['legacy', 'modern'] as const)(
    'a subscribed %s client is told of an update under the public URI',
    async (era) => {
      gateway = await world.serve();
      const client = await world.client(gateway.url, era);
      const updated = new Promise<string>((resolve) => {
        client.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri));
      });
      let got: string | undefined;
      void updated.then((uri) => {
        got = uri;
      });
      if (era === 'legacy') await client.subscribeResource({ uri: 'mcpx://local/test://counter' });
      else await client.listen({ resourceSubscriptions: ['mcpx://local/test://counter'] });
      // A 2026-07-28 stream is acknowledged before the gateway's own upstream subscription is
      // in place: touch until the update comes through (a 2025 subscribe is in place at once).
      for (let i = 0; i < 50 && got === undefined; i++) {
        await client.callTool({ name: 'local__touch_resource', arguments: {} });
        await delay(100);
      }
      expect(await updated).toBe('mcpx://local/test://counter');
    },
  );

  it.each(['legacy', 'modern'] as const)(
    'completes prompt and template arguments for a %s client',
    async (era) => {
      gateway = await world.serve();
      const client = await world.client(gateway.url, era);
      const prompt = await client.complete({
        ref: { type: 'ref/prompt', name: 'local__code_review' },
        argument: { name: 'language', value: 'py' },
      });
      expect(prompt.completion.values).toContain('python');
      const template = await client.complete({
        ref: { type: 'ref/resource', uri: 'mcpx://local/test://users/{id}' },
        argument: { name: 'id', value: '' },
      });
      expect(template.completion.values.length).toBeGreaterThan(0);
    },
  );
});

describe('SIGTERM', () => {
  it('lets the call in flight finish, then closes the upstreams and exits 0', async () => {
    gateway = await world.serve();
    const client = await world.client(gateway.url, 'legacy');
    let signalled = false;
    const call = client.callTool(
      { name: 'local__slow_operation', arguments: { steps: 10, delay_ms: 100 } },
      {
        onprogress: () => {
          if (!signalled) {
            signalled = true;
            gateway.child.kill('SIGTERM');
          }
        },
      },
    );
    const result = await call;
    expect(signalled).toBe(true);
    expect(result.isError).toBeFalsy();
    expect(firstText(result)).toMatch(/10/);
    const exit = await gateway.exited;
    expect(exit.code).toBe(0);
  });
});
