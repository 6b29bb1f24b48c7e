/**
 * Issue 40, through the built `mcpx serve` with the SDK `Client` in both eras, under the default
 * `trusted` level: loading a skill (the gateway's `mcpx__load_skill`, or a `resources/read` of a
 * `skill://` URI by a client speaking the extension) is decided as a call of the skill's
 * `skill:<name>` action. A client that can show a form is asked (a 2025-11-25 session by
 * elicitation, a 2026-07-28 client in an input round); one that cannot is refused with how to
 * allow it. Each load and read is one line of the audit log naming the server, the skill, the
 * client, the decision and the outcome, as a tool call's is.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { firstText, type GatewayWorld, gatewayWorld } from '../helpers/gateway.js';

const skillsServer = join(repoRoot, 'dist/testing/skills-server.js');
const SPEAKS_SKILLS = { extensions: { 'io.modelcontextprotocol/skills': {} } };

interface Line {
  client: string;
  clientInfo?: { name: string };
  server?: string;
  tool: string;
  decision?: { result: string; by: string };
  outcome: string;
}

async function linesOf(file: string): Promise<Line[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);
}

/** The client's person: answers each consent form with the next decision, and counts the forms. */
function person(client: Client, answers: string[]): { asked: () => number } {
  let asked = 0;
  client.setRequestHandler('elicitation/create', async () => {
    asked += 1;
    const decision = answers.shift();
    if (decision === undefined) throw new Error('asked more than the test expected');
    return { action: 'accept', content: { decision } };
  });
  return { asked: () => asked };
}

/** A 2026-07-28 client answers forms in input rounds, which the SDK client runs through the same handler. */
const FORMS = { elicitation: { form: {} } };

let world: GatewayWorld;
beforeAll(async () => {
  world = await gatewayWorld({
    permission: 'trusted',
    mcpServers: { docs: { command: process.execPath, args: [skillsServer] } },
  });
}, 60_000);
afterEach(() => world.stopAll());
afterAll(() => world?.close());

describe.each(['legacy', 'modern'] as const)('a skill load needing consent, a %s client', (era) => {
  it('asks a client that can show a form, refuses one that cannot with how to allow it, and audits each', {
    timeout: 90_000,
  }, async () => {
    const audit = join(world.dir, `audit-skills-${era}.jsonl`);
    const gateway = await world.serve(['--audit-log', audit]);

    const asking = await world.client(gateway.url, era, { capabilities: FORMS });
    const answers = person(asking, ['confirm-each', 'once']);
    const loaded = await asking.callTool({
      name: 'mcpx__load_skill',
      arguments: { skill: 'docs.pdf-processing' },
    });
    expect(firstText(loaded)).toContain('Read references/FORMS.md before filling a form.');
    expect(loaded.isError).toBeFalsy();
    expect(answers.asked()).toBe(2);

    const mute = await world.client(gateway.url, era);
    const refused = await mute.callTool({
      name: 'mcpx__load_skill',
      arguments: { skill: 'docs.release-notes' },
    });
    expect(refused.isError).toBe(true);
    expect(firstText(refused)).toMatch(/--allow docs/);
    expect(firstText(refused)).not.toContain('Release notes');

    // A client speaking the extension reads the SKILL.md itself: decided and recorded the same way.
    const reader = await world.client(gateway.url, era, { capabilities: { ...FORMS, ...SPEAKS_SKILLS } });
    // A 2025-11-25 session is a client of its own, asked afresh for the server; a 2026-07-28 client
    // over HTTP without a token is known by its name and version, the first one's: asked per call only.
    const fresh = era === 'legacy';
    const readerAnswers = person(reader, fresh ? ['confirm-each', 'once'] : ['once']);
    const read = await reader.readResource({ uri: 'skill://docs/pdf-processing/SKILL.md' });
    expect(JSON.stringify(read.contents)).toContain('Read references/FORMS.md before filling a form.');
    expect(readerAnswers.asked()).toBe(fresh ? 2 : 1);

    // Written behind the replies: the lines may land just after them.
    await expect.poll(async () => (await linesOf(audit)).length, { timeout: 5_000 }).toBe(3);
    const lines = await linesOf(audit);
    expect(
      lines.map((l) => ({
        server: l.server,
        tool: l.tool,
        decision: l.decision && { result: l.decision.result, by: l.decision.by },
        outcome: l.outcome,
      })),
    ).toEqual([
      {
        server: 'docs',
        tool: 'skill:pdf-processing',
        decision: { result: 'confirmed', by: 'client' },
        outcome: 'ok',
      },
      {
        server: 'docs',
        tool: 'skill:release-notes',
        decision: { result: 'denied', by: 'nobody' },
        outcome: 'refused',
      },
      {
        server: 'docs',
        tool: 'skill:pdf-processing',
        decision: { result: 'confirmed', by: 'client' },
        outcome: 'ok',
      },
    ]);
    for (const line of lines) {
      expect(line.client).toBe('gateway');
      expect(line.clientInfo?.name).toBe('gateway-test');
    }
    // What a skill says is not the log's: it records that it was read.
    expect(await readFile(audit, 'utf8')).not.toContain('FORMS.md before filling');
  });
});
