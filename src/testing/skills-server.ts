/**
 * `mcpx-skills-test-server`: a stdio MCP server that serves skills (SEP-2640) with the SDK's
 * server side. Run it as `node dist/testing/skills-server.js`.
 *
 * Environment:
 * - `MCPX_TEST_SKILLS=honest` (default): `pdf-processing` and `release-notes` from a
 *   `SkillCatalog`, which publishes true digests and sizes.
 * - `MCPX_TEST_SKILLS=hostile`: a catalogue that lies (`skill-fixtures.ts#hostileSkills`).
 * - `MCPX_TEST_SKILL_READ_LOG=FILE` appends the URI of every `resources/read` it receives to
 *   FILE, one a line: tests prove a host read no skill file it was not asked for.
 */
import { appendFileSync } from 'node:fs';
import { type Readable, Transform, Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/server';
import { memorySkillFiles, SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { VERSION } from '../version.js';
import { honestSkillFiles, hostileSkills, hostileSource, invalidSkillEntries } from './skill-fixtures.js';

const NAME = 'mcpx-skills-test-server';

/**
 * stdin, with every `resources/read` URI also written to `file`. A stream the SDK reads from, not a
 * second `data` listener on stdin: one attached before the SDK's would set stdin flowing and lose
 * what the client sent meanwhile (its `initialize`, so the client would wait for ever).
 */
function readsLogged(file: string): Readable {
  let partial = '';
  const tee = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const message = JSON.parse(line) as { method?: unknown; params?: { uri?: unknown } };
          if (message.method === 'resources/read') appendFileSync(file, `${String(message.params?.uri)}\n`);
        } catch {
          // not JSON: the SDK answers it
        }
      }
      done(null, chunk);
    },
  });
  return process.stdin.pipe(tee);
}

/**
 * stdout, with `extra` entries added to every `skills/list` answer: the SDK's server side drops
 * invalid entries, and a hostile server is one that sends them anyway.
 */
function addingEntries(extra: readonly unknown[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      const lines = chunk.toString('utf8').split('\n');
      const out = lines.map((line) => {
        try {
          const message = JSON.parse(line) as { result?: { skills?: unknown[] } };
          if (Array.isArray(message.result?.skills)) message.result.skills.push(...extra);
          return JSON.stringify(message);
        } catch {
          return line;
        }
      });
      process.stdout.write(out.join('\n'), done);
    },
  });
}

async function main(): Promise<void> {
  process.stdout.on('error', () => {});
  const mode = process.env.MCPX_TEST_SKILLS ?? 'honest';
  if (mode !== 'honest' && mode !== 'hostile') {
    process.stderr.write(`${NAME}: MCPX_TEST_SKILLS must be honest or hostile, got "${mode}"\n`);
    process.exit(2);
  }
  const extension =
    mode === 'honest'
      ? await SkillsExtension.load(memorySkillFiles(honestSkillFiles()), { strict: true })
      : new SkillsExtension({
          source: hostileSource(await hostileSkills()),
          // Its lies are the point: no warning about them on stderr.
          onWarning: () => {},
        });
  const output = mode === 'hostile' ? addingEntries(await invalidSkillEntries()) : process.stdout;
  // Nothing reads stdin before this (no await after it): what the client sent waits for the SDK.
  const log = process.env.MCPX_TEST_SKILL_READ_LOG;
  const transport = { transport: new StdioServerTransport(log ? readsLogged(log) : process.stdin, output) };
  serveStdio(() => {
    const server = new McpServer(
      { name: NAME, version: VERSION },
      { capabilities: { resources: {} }, instructions: 'Serves skills (SEP-2640).' },
    );
    extension.attach(server);
    return server;
  }, transport);
  process.stdin.once('end', () => setTimeout(() => process.exit(0), 500).unref());
}

await main();
