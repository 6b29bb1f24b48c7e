import type { ServerConfig } from '../../config/index.js';
import type { ListedSkill, LoadedSkill, SkillFileContent } from '../../skills/index.js';
import { forTerminal, say } from '../../text/index.js';
import type { CliContext, CliDoor } from '../context/context.js';
import { usageError } from '../context/global-options.js';
import { ExitCode, exitCodeFor } from '../io/exit-codes.js';
import { toJson } from '../output/json.js';
import { plural } from '../output/plural.js';
import { truncate } from '../output/table.js';
import type { ExtraCommand } from '../shell/commands.js';
import { writeErrors } from '../target/report.js';
import { splitTarget } from '../target/split-target.js';

/**
 * `mcpx skills [server]`: every usable server's skills (or one's) with their descriptions, from
 * the servers' manifests alone (no skill file is read). Entries mcpx refused are said on stderr.
 */
export async function runSkills(
  session: CliContext,
  name: string | undefined,
  signal: AbortSignal = session.io.signal,
): Promise<number> {
  const { io, options } = session;
  const servers = name !== undefined ? [name] : session.adhoc ? [session.adhoc.name] : undefined;
  const listing = await session.host.skills().list({ ...(servers ? { servers } : {}), signal });
  if (options.json) {
    io.stdout.write(
      toJson({
        skills: listing.skills.map(skillJson),
        refused: listing.refused,
      }),
    );
  } else {
    const byServer = new Map<string, ListedSkill[]>();
    for (const s of listing.skills) byServer.set(s.server, [...(byServer.get(s.server) ?? []), s]);
    for (const [server, skills] of byServer) {
      io.stdout.write(say`${server} (${plural(skills.length, 'skill')})\n`);
      for (const s of skills) io.stdout.write(say`  ${s.name}  ${truncate(s.description, 70)}\n`);
    }
    if (listing.skills.length === 0 && listing.failures.length === 0)
      io.stdout.write(say`no skills${name ? ` on '${name}'` : ''}\n`);
  }
  for (const r of listing.refused) {
    if (!options.json)
      io.stderr.write(
        say`warning: '${r.server}' listed a skill mcpx refused (${r.uri ?? 'no uri'}): ${r.reason}\n`,
      );
  }
  const errors = listing.failures.map((f) => f.error);
  writeErrors(session, errors);
  return errors[0] ? exitCodeFor(errors[0].code) : ExitCode.Ok;
}

/**
 * `mcpx skill <server>.<skill> [file]`: loads the skill (its `SKILL.md`, verified) and shows it
 * with its file list; with `file`, that file of the skill, verified, after its `SKILL.md`.
 */
export function runSkill(door: CliDoor, target: string, file: string | undefined): Promise<number> {
  return showSkill(door.open(), target, file);
}

async function showSkill(
  session: CliContext,
  target: string,
  file: string | undefined,
  signal: AbortSignal = session.io.signal,
): Promise<number> {
  const { server, name } = await skillTarget(session, target);
  const skills = session.host.skills();
  if (file !== undefined) {
    printFile(session, await skills.readFile(server.name, name, file, { signal }));
    return ExitCode.Ok;
  }
  printSkill(session, await skills.get(server.name, name, { signal }));
  return ExitCode.Ok;
}

/**
 * The console's `/skills` (mcpx shell): `/skills [server]` lists, `/skills <server>.<skill> [file]`
 * shows one skill or reads one of its files, as `mcpx skills` and `mcpx skill` do.
 */
export function skillsShellCommand(session: CliContext): ExtraCommand {
  return {
    help: 'skills: list them, show one, or read one of its files',
    usage: '[server] | <server>.<skill> [file]',
    run: async (args, signal) => {
      const [first, file] = args;
      if (first !== undefined && splitTarget(first)) await showSkill(session, first, file, signal);
      else await runSkills(session, first, signal);
    },
  };
}

/** `server.skill` (a skill name never holds a dot), or a bare name with one ad-hoc server. */
async function skillTarget(
  session: CliContext,
  target: string,
): Promise<{ server: ServerConfig; name: string }> {
  const split = splitTarget(target);
  const adhoc = session.adhoc;
  if (adhoc) return { server: adhoc, name: split && split.server === adhoc.name ? split.name : target };
  if (!split) {
    throw usageError(
      `'${forTerminal(target)}' does not name a server: write <server>.<skill>`,
      'e.g. mcpx skill docs.pdf-processing (mcpx skills lists them)',
    );
  }
  return { server: await session.host.server(split.server), name: split.name };
}

/** A listed skill as `--json` gives it: its manifest, without the raw entry. */
function skillJson(s: ListedSkill) {
  return {
    server: s.server,
    name: s.name,
    id: s.id,
    description: s.description,
    uri: s.uri,
    files: s.files,
    fingerprint: s.fingerprint,
  };
}

function printSkill(session: CliContext, loaded: LoadedSkill): void {
  const { io, options } = session;
  const { skill } = loaded;
  if (options.json) {
    io.stdout.write(
      toJson({
        ...skillJson(skill),
        frontmatter: loaded.frontmatter,
        body: loaded.body,
        markdown: loaded.markdown,
      }),
    );
    return;
  }
  io.stdout.write(say`# ${skill.id} (from '${skill.server}', verified)\n\n`);
  const text = forTerminal(loaded.markdown);
  io.stdout.write(text.endsWith('\n') ? text : say`${text}\n`);
  io.stdout.write(say`\nFiles (fingerprint ${skill.fingerprint.slice(0, 16)}):\n`);
  if (skill.files === 'dynamic') {
    io.stdout.write(say`  (dynamic: the server resolves files on request; they cannot be verified)\n`);
    return;
  }
  for (const f of skill.files) io.stdout.write(say`  ${f.path}  ${plural(f.size, 'byte')}\n`);
}

function printFile(session: CliContext, content: SkillFileContent): void {
  const { io, options } = session;
  if (options.json) {
    io.stdout.write(
      toJson({
        skill: content.skill.id,
        path: content.path,
        uri: content.uri,
        ...(content.mimeType ? { mimeType: content.mimeType } : {}),
        verified: content.verified,
        ...(content.text !== undefined
          ? { text: content.text }
          : { blob: Buffer.from(content.bytes).toString('base64') }),
      }),
    );
    return;
  }
  if (content.text === undefined) {
    io.stdout.write(
      say`[binary ${content.path}, ${plural(content.bytes.byteLength, 'byte')} — --json gives base64]\n`,
    );
    return;
  }
  const text = forTerminal(content.text);
  io.stdout.write(text.endsWith('\n') ? text : say`${text}\n`);
}
