/**
 * Input rounds that survive a load balancer (issue 15, item 7): two `mcpx serve
 * --http` instances sharing `--state-key-file`, one 2026-07-28 upstream (the
 * conformance backend over HTTP, as a deployment's upstream would be), and one
 * 2026-07-28 client whose requests go to whichever instance the test routes
 * them to. A round started on one instance is finished on the other; without
 * a shared key the other instance refuses it with the clear "start over" error.
 */
import { randomBytes } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ConformanceBackend, startConformanceBackend } from '../../src/testing/conformance-backend.js';
import { runCli } from '../helpers/cli.js';
import { type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

let world: GatewayWorld;
let upstream: ConformanceBackend;
let keyFile: string;

beforeAll(async () => {
  upstream = await startConformanceBackend();
  world = await gatewayWorld({
    permission: 'yolo',
    mcpServers: { new: { url: upstream.url, protocol: 'modern' } },
  });
  keyFile = join(world.dir, 'state.key');
  await writeFile(keyFile, randomBytes(32), { mode: 0o600 });
}, 60_000);

afterEach(() => world.stopAll());
afterAll(async () => {
  await world?.close();
  await upstream?.close();
});

interface Round {
  resultType?: string;
  inputRequests?: Record<string, unknown>;
  requestState?: string;
  content?: { text?: string }[];
}

/**
 * One 2026-07-28 client that handles `input_required` itself, whose every
 * request goes to the instance `to()` names: a load balancer the test drives.
 */
async function balancedClient(instances: readonly string[]) {
  let target = instances[0] as string;
  const reached: string[] = [];
  const client = new Client(
    { name: 'balanced', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} } },
      inputRequired: { autoFulfill: false },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(target), {
      fetch: (_url, init) => {
        reached.push(target);
        return fetch(target, init);
      },
    }),
  );
  const call = (name: string, retry?: { state: string; answers: Record<string, unknown> }) =>
    client.request(
      {
        method: 'tools/call',
        params: {
          name,
          arguments: {},
          ...(retry ? { requestState: retry.state, inputResponses: retry.answers } : {}),
        },
      },
      { allowInputRequired: true },
    ) as Promise<Round>;
  return {
    client,
    reached,
    /** Send the next requests to instance `i`. */
    to(i: number) {
      target = instances[i] as string;
    },
    call,
  };
}

const accept = (content: Record<string, string>) => ({ action: 'accept', content });

describe('two mcpx serve --http instances with one --state-key-file', () => {
  it('finish on instance B a round that instance A started, across every round of a call', async () => {
    const a = await world.serve(['--state-key-file', keyFile]);
    const b = await world.serve(['--state-key-file', keyFile]);
    const lb = await balancedClient([a.url, b.url]);
    try {
      lb.to(0);
      const first = await lb.call('new__test_input_required_result_elicitation');
      expect(first.resultType).toBe('input_required');
      expect(Object.keys(first.inputRequests ?? {})).toEqual(['user_name']);
      lb.to(1);
      const done = await lb.call('new__test_input_required_result_elicitation', {
        state: first.requestState as string,
        answers: { user_name: accept({ name: 'Ada' }) },
      });
      expect(done.content?.[0]?.text).toBe('Hello, Ada!');

      // Three requests, A → B → A, with the upstream's own (HMAC-signed) state carried inside ours.
      lb.to(0);
      const step1 = await lb.call('new__test_input_required_result_multi_round');
      expect(Object.keys(step1.inputRequests ?? {})).toEqual(['step1']);
      lb.to(1);
      const step2 = await lb.call('new__test_input_required_result_multi_round', {
        state: step1.requestState as string,
        answers: { step1: accept({ name: 'Ada' }) },
      });
      expect(Object.keys(step2.inputRequests ?? {})).toEqual(['step2']);
      lb.to(0);
      const final = await lb.call('new__test_input_required_result_multi_round', {
        state: step2.requestState as string,
        answers: { step2: accept({ color: 'green' }) },
      });
      expect(final.content?.[0]?.text).toBe('Multi-round complete for Ada who likes green');
      // The rounds really alternated between the two processes.
      expect(lb.reached.filter((u) => u === a.url).length).toBeGreaterThanOrEqual(3);
      expect(lb.reached.filter((u) => u === b.url).length).toBeGreaterThanOrEqual(2);
    } finally {
      await lb.client.close();
    }
  });

  it('refuses the round on the other instance when the key is not shared, saying to start over', async () => {
    const a = await world.serve(['--state-key-file', keyFile]);
    const b = await world.serve(); // its own random key
    const lb = await balancedClient([a.url, b.url]);
    try {
      const first = await lb.call('new__test_input_required_result_elicitation');
      lb.to(1);
      await expect(
        lb.call('new__test_input_required_result_elicitation', {
          state: first.requestState as string,
          answers: { user_name: accept({ name: 'Ada' }) },
        }),
      ).rejects.toThrow(
        /unknown, already used, expired, or from another client — call again without requestState/,
      );
      // Starting over, as the error says, works on that instance.
      const again = await lb.call('new__test_input_required_result_elicitation');
      const done = await lb.call('new__test_input_required_result_elicitation', {
        state: again.requestState as string,
        answers: { user_name: accept({ name: 'Ada' }) },
      });
      expect(done.content?.[0]?.text).toBe('Hello, Ada!');
    } finally {
      await lb.client.close();
    }
  });
});

describe('mcpx serve --state-key-file', () => {
  const serve = (file: string) =>
    runCli(['--config', world.configFile, 'serve', '--http', '--state-key-file', file], {
      cwd: world.dir,
      home: world.home,
    });

  it('refuses a key file other users can read, and says how to fix it', async () => {
    const file = join(world.dir, 'shared.key');
    await writeFile(file, randomBytes(32));
    await chmod(file, 0o640);
    const run = await serve(file);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the state key file ${file} is readable by other users (mode 640)`);
    expect(run.stderr).toContain(`chmod 600 '${file}'`);
    expect(run.stderr).not.toMatch(/listening on/);
  });

  it('refuses a key too short to be one', async () => {
    const file = join(world.dir, 'short.key');
    await writeFile(file, 'hunter2', { mode: 0o600 });
    const run = await serve(file);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('7 bytes long; a key needs at least 32 random bytes');
    expect(run.stderr).toContain('head -c 32 /dev/urandom');
  });

  it('goes with --http only', async () => {
    const run = await runCli(['--config', world.configFile, 'serve', '--state-key-file', keyFile], {
      cwd: world.dir,
      home: world.home,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--state-key-file, --state and --instance-id go with --http');
  });
});
