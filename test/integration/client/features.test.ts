/** Roots, sampling and elicitation served by the host, against @modelcontextprotocol/server-everything. */
import type { CreateMessageRequestParams, ElicitRequestFormParams } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ClientFeatures,
  createRoots,
  rootsForDirectories,
  samplingRefused,
} from '../../../src/client/features.js';
import { connectServer } from '../../../src/client/server-connection.js';
import { createServerTransport } from '../../../src/client/transport-factory.js';
import { everythingPath, nodeServer, trackConnections } from '../../helpers/servers.js';

const { track, closeAll } = trackConnections();
afterEach(closeAll);

const everything = nodeServer('everything', everythingPath);
const connectWith = (features?: ClientFeatures) =>
  track(
    connectServer(everything, {
      createTransport: () => createServerTransport(everything, { hostEnv: process.env }),
      ...(features ? { features } : {}),
    }),
  );
const text = (result: { content?: unknown[] }) => JSON.stringify(result.content);

describe('client features', () => {
  it('declares nothing without handlers: the server offers no sampling, elicitation or roots tools', async () => {
    const names = (await (await connectWith()).listTools()).map((t) => t.name);
    expect(names).not.toContain('trigger-sampling-request');
    expect(names).not.toContain('trigger-elicitation-request');
    expect(names).not.toContain('get-roots-list');
  });

  it('roots: the server lists the host roots and hears when they change', async () => {
    const roots = createRoots(rootsForDirectories(['/srv/project']));
    const connection = await connectWith({ roots });
    expect(text(await connection.callTool('get-roots-list', {}))).toContain('file:///srv/project');
    roots.set(rootsForDirectories(['/srv/other']));
    await expect
      .poll(async () => text(await connection.callTool('get-roots-list', {})), { timeout: 5_000 })
      .toContain('file:///srv/other');
  });

  it('sampling: the request reaches the host handler with maxTokens capped; a refusal reaches the server', async () => {
    const seen: CreateMessageRequestParams[] = [];
    let allow = true;
    const connection = await connectWith({
      sampling: {
        maxTokens: 50,
        createMessage: async (params) => {
          seen.push(params);
          if (!allow) throw samplingRefused();
          return {
            model: 'host-model',
            role: 'assistant',
            content: { type: 'text', text: 'sampled answer' },
          };
        },
      },
    });
    const result = await connection.callTool('trigger-sampling-request', { prompt: 'hello', maxTokens: 500 });
    expect(text(result)).toContain('sampled answer');
    expect(seen[0]?.maxTokens).toBe(50);
    allow = false;
    const refused = await connection
      .callTool('trigger-sampling-request', { prompt: 'again' })
      .catch((e: Error) => e);
    expect(refused instanceof Error ? refused.message : text(refused)).toMatch(/declined|rejected|-1/i);
  });

  it('elicitation: accept with the schema defaults filled in, decline and cancel', async () => {
    const answers: ('accept' | 'decline' | 'cancel')[] = ['accept', 'decline', 'cancel'];
    const asked: ElicitRequestFormParams[] = [];
    const connection = await connectWith({
      elicitation: {
        form: async (params) => {
          asked.push(params);
          const action = answers.shift() ?? 'cancel';
          return action === 'accept' ? { action, content: {} } : { action };
        },
      },
    });
    const accepted = text(await connection.callTool('trigger-elicitation-request', {}));
    expect(asked[0]?.requestedSchema.properties).toBeDefined();
    const defaults = Object.entries(asked[0]?.requestedSchema.properties ?? {}).filter(
      ([, f]) => (f as { default?: unknown }).default !== undefined,
    );
    expect(defaults.length).toBeGreaterThan(0);
    // The server echoes what it received; every default is in it although the user typed nothing.
    const received = accepted.replace(/\\n|\s|\\"/g, '');
    for (const [, field] of defaults) {
      expect(received).toContain(
        JSON.stringify((field as { default: unknown }).default).replace(/"|\s/g, ''),
      );
    }
    expect(text(await connection.callTool('trigger-elicitation-request', {}))).toMatch(/decline/i);
    expect(text(await connection.callTool('trigger-elicitation-request', {}))).toMatch(/cancel/i);
  });
});
