/**
 * Issue 25, item 5, through the built `mcpx serve` under `trusted` with nobody
 * to ask: the annotations of a server from the user's own config decide what
 * runs unasked (read-only) and what is always put to a person (destructive,
 * open world), even after `--allow`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, runCli, testServerPath } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

let world: GatewayWorld;

beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'trusted',
    mcpServers: {
      mine: { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_ANNOTATED: '1' } },
    },
  });
});
afterEach(async () => {
  await world.stopAll();
});
afterAll(async () => {
  await world?.close();
});

describe.each(['legacy', 'modern'] as const)('mcpx serve under trusted, a %s client', (era) => {
  it('runs the read-only tool of a server in the user’s own config without --allow; asks before the rest', async () => {
    const client = await world.client((await world.serve()).url, era);
    const echoed = await client.callTool({ name: 'mine__echo', arguments: { message: 'unasked' } });
    expect(echoed.isError).toBeFalsy();
    expect(firstText(echoed)).toBe('unasked');
    // An unannotated tool: today's refusal, allowed by --allow.
    const unannotated = await client.callTool({ name: 'mine__add_tool', arguments: { name: 'x' } });
    expect(unannotated.isError).toBe(true);
    expect(firstText(unannotated)).toContain('restart the gateway with `--allow mine`');
    const erase = await client.callTool({ name: 'mine__erase', arguments: {} });
    expect(erase.isError).toBe(true);
    expect(firstText(erase)).toContain("mcpx refused 'erase' of 'mine': its annotations mark it destructive");
  });

  it('asks again about a read-only tool that ran unasked once the server changes its annotations', async () => {
    const client = await world.client((await world.serve()).url, era);
    expect(firstText(await client.callTool({ name: 'mine__echo', arguments: { message: 'before' } }))).toBe(
      'before',
    );
    await client.callTool({ name: 'mine__relabel_echo', arguments: {} });
    // The gateway re-lists the upstream's tools on its list_changed (a 2026-07-28 client has no
    // stream to be told on, so the test asks until the new definition shows).
    await expect
      .poll(async () => (await client.listTools()).tools.find((t) => t.name === 'mine__echo')?.annotations)
      .toMatchObject({ idempotentHint: true });
    const after = await client.callTool({ name: 'mine__echo', arguments: { message: 'after' } });
    expect(after.isError).toBe(true);
    expect(firstText(after)).toContain('annotations changed');
  });

  it('still refuses a destructive or open-world tool after --allow, with what to do', async () => {
    const client = await world.client((await world.serve(['--allow', 'mine'])).url, era);
    expect(
      firstText(await client.callTool({ name: 'mine__add_tool', arguments: { name: 'late' } })),
    ).not.toMatch(/refused/);
    for (const [name, hint] of [
      ['erase', 'destructive'],
      ['fetch_page', 'open-world'],
    ] as const) {
      const refused = await client.callTool({ name: `mine__${name}`, arguments: {} });
      expect(refused.isError).toBe(true);
      expect(firstText(refused)).toBe(
        `mcpx refused '${name}' of 'mine': its annotations mark it ${hint}, permission 'trusted' asks a ` +
          'person before each such call, even with `--allow`, and the gateway has nobody to ask. ' +
          'To allow it, restart the gateway with `--permission yolo`.',
      );
    }
  });
});

describe('an approved project entry', () => {
  it('runs its read-only tool unasked, and asks again once the server changes that tool’s annotations', async () => {
    const project = join(world.dir, 'repo');
    await mkdir(project, { recursive: true });
    const entry = { command: process.execPath, args: [testServerPath], env: { MCPX_TEST_ANNOTATED: '1' } };
    await writeFile(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { proj: entry } }));
    const trust = await runCli(['config', 'trust', '--yes'], { cwd: project, home: world.home });
    expect(trust.code, trust.stderr).toBe(0);
    const client = new Client({ name: 'host', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, 'serve'],
        env: { PATH: process.env.PATH ?? '', HOME: world.home, MCPX_HOME: join(world.home, '.mcpx') },
        cwd: project,
        stderr: 'pipe',
      }),
    );
    try {
      expect(firstText(await client.callTool({ name: 'proj__echo', arguments: { message: 'before' } }))).toBe(
        'before',
      );
      await client.callTool({ name: 'proj__relabel_echo', arguments: {} });
      await expect
        .poll(async () => (await client.listTools()).tools.find((t) => t.name === 'proj__echo')?.annotations)
        .toMatchObject({ idempotentHint: true });
      const after = await client.callTool({ name: 'proj__echo', arguments: { message: 'after' } });
      expect(after.isError).toBe(true);
      expect(firstText(after)).toContain("mcpx refused 'echo' of 'proj': its definition changed");
      expect(firstText(after)).toContain('annotations changed');
    } finally {
      await client.close();
    }
  });
});
