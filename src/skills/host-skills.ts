import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import type { ServerConnection } from '../client/index.js';
import { ErrorCode, McpxError, toMcpxError } from '../errors/index.js';
import { skillFingerprint } from './skill-fingerprint.js';
import type {
  HostSkills,
  ListedSkill,
  LoadedSkill,
  RefusedSkillEntry,
  SkillFileContent,
  SkillFileEntry,
} from './types.js';

/** How the skills reach the servers: the host's own paths, so its trust and choice of servers hold. */
export interface HostSkillsDeps {
  /**
   * Every server the host may use, connected (one that fails is reported, never waited on by
   * the others), or only `servers`.
   */
  connectAll(options: {
    readonly servers?: readonly string[];
    readonly signal?: AbortSignal;
  }): Promise<
    readonly { readonly server: string; readonly connection?: ServerConnection; readonly error?: McpxError }[]
  >;
  /** One server by name, connected; an unknown or untrusted one throws, as `host.server()` does. */
  connect(server: string): Promise<ServerConnection>;
}

const MANIFEST = 'SKILL.md';

/** Make the host's {@link HostSkills}. */
export function createHostSkills(deps: HostSkillsDeps): HostSkills {
  return {
    async list(options = {}) {
      const reached = await deps.connectAll(options);
      const skills: ListedSkill[] = [];
      const refused: RefusedSkillEntry[] = [];
      const failures: { server: string; error: McpxError }[] = [];
      await Promise.all(
        reached.map(async ({ server, connection, error }) => {
          if (!connection) {
            if (error) failures.push({ server, error });
            return;
          }
          try {
            const listed = await listConnectionSkills(connection, options.signal);
            skills.push(...listed.skills);
            refused.push(...listed.refused);
          } catch (failure) {
            failures.push({ server, error: toMcpxError(failure) });
          }
        }),
      );
      // Servers in the order asked, each server's skills in its own order.
      const order = new Map(reached.map((r, i) => [r.server, i]));
      const byServer = <T extends { server: string }>(a: T, b: T) =>
        (order.get(a.server) ?? 0) - (order.get(b.server) ?? 0);
      // (Array sort is stable: each server's own order stays.)
      return { skills: skills.sort(byServer), refused: refused.sort(byServer), failures };
    },

    async get(server, name, options = {}) {
      const { connection, skill } = await find(deps, server, name, options.signal);
      return load(connection, skill, options.signal);
    },

    async readFile(server, name, path, options = {}) {
      const { connection, skill } = await find(deps, server, name, options.signal);
      // The skill is loaded first: none of its files is used unless its SKILL.md verifies.
      await load(connection, skill, options.signal);
      const signal = options.signal ? { signal: options.signal } : {};
      const file = await connection.skills.read(skill.entry, path, signal);
      const text = file.text ?? utf8(file.bytes);
      return {
        skill,
        path: pathIn(skill.uri, file.uri),
        uri: file.uri,
        ...(file.mimeType !== undefined ? { mimeType: file.mimeType } : {}),
        ...(text !== undefined ? { text } : {}),
        bytes: file.bytes,
        verified: file.verified,
      } satisfies SkillFileContent;
    },
  };
}

/** One server's manifest: `skills/list` only, never a file. A server without the extension has none. */
export async function listConnectionSkills(
  connection: ServerConnection,
  signal: AbortSignal | undefined,
): Promise<{ skills: ListedSkill[]; refused: RefusedSkillEntry[] }> {
  const server = connection.server.name;
  if (!connection.skills.supported) return { skills: [], refused: [] };
  const listing = await connection.skills.list(signal ? { signal } : {});
  const counts = new Map<string, number>();
  for (const s of listing.skills) counts.set(s.frontmatter.name, (counts.get(s.frontmatter.name) ?? 0) + 1);
  return {
    skills: listing.skills.map((entry) =>
      listedSkill(server, entry, (counts.get(entry.frontmatter.name) ?? 0) > 1),
    ),
    refused: listing.invalid.map((i) => ({
      server,
      ...(i.uri !== undefined ? { uri: i.uri } : {}),
      reason: i.reason,
    })),
  };
}

function listedSkill(server: string, entry: Skill, ambiguous: boolean): ListedSkill {
  const name = ambiguous ? skillPath(entry.uri) : entry.frontmatter.name;
  const files: ListedSkill['files'] =
    entry.resources === 'dynamic'
      ? 'dynamic'
      : [...entry.resources]
          // Its SKILL.md first, then the others as listed.
          .sort((a, b) => Number(b.uri === entry.uri) - Number(a.uri === entry.uri))
          .map(
            (r): SkillFileEntry => ({
              path: pathIn(entry.uri, r.uri),
              uri: r.uri,
              size: r.size,
              digest: r.digest,
            }),
          );
  return {
    server,
    name,
    id: `${server}.${name}`,
    description: entry.frontmatter.description,
    uri: entry.uri,
    files,
    fingerprint: skillFingerprint(entry),
    entry,
  };
}

/** `skill://acme/pdf-processing/SKILL.md` → `acme/pdf-processing`. */
function skillPath(uri: string): string {
  const rest = uri.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  return rest.endsWith(`/${MANIFEST}`) ? rest.slice(0, -(MANIFEST.length + 1)) : rest;
}

/** A file's path in its skill, as the server spells it (its URI when it is not under the skill's root). */
function pathIn(skillUri: string, fileUri: string): string {
  const root = skillUri.slice(0, skillUri.length - MANIFEST.length);
  return fileUri.startsWith(root) ? fileUri.slice(root.length) : fileUri;
}

/** The skill `name` of `server`, from its manifest alone; UNKNOWN_SKILL naming the ones it has. */
async function find(
  deps: HostSkillsDeps,
  server: string,
  name: string,
  signal: AbortSignal | undefined,
): Promise<{ connection: ServerConnection; skill: ListedSkill }> {
  const connection = await deps.connect(server);
  const { skills, refused } = await listConnectionSkills(connection, signal);
  const skill = skills.find((s) => s.name === name) ?? skills.find((s) => skillPath(s.uri) === name);
  if (skill) return { connection, skill };
  const refusal = refused.find((r) => r.uri !== undefined && skillPath(r.uri) === name);
  throw new McpxError(
    ErrorCode.UnknownSkill,
    refusal
      ? `'${server}' lists skill '${name}', but mcpx refused its entry: ${refusal.reason}`
      : connection.skills.supported
        ? `'${server}' has no skill '${name}'`
        : `'${server}' serves no skills (it does not declare the skills extension)`,
    {
      server,
      skill: name,
      ...(skills.length ? { causes: [`its skills: ${skills.map((s) => s.name).join(', ')}`] } : {}),
      fixes: connection.skills.supported
        ? [`list its skills: mcpx skills ${server}`]
        : ['mcpx skills lists the skills of every server that serves some'],
    },
  );
}

/** Read and verify the skill's SKILL.md (the SDK checks size, digest and frontmatter). */
async function load(
  connection: ServerConnection,
  skill: ListedSkill,
  signal: AbortSignal | undefined,
): Promise<LoadedSkill> {
  const file = await connection.skills.read(skill.entry, undefined, signal ? { signal } : {});
  return {
    skill,
    markdown: file.text ?? '',
    body: file.body ?? '',
    frontmatter: file.frontmatter ?? {},
  };
}

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
