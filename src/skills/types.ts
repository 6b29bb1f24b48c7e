import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import type { McpxError } from '../errors/index.js';

/** One file a skill lists, with what it is verified against when read. */
export interface SkillFileEntry {
  /** Where it is in the skill (`references/FORMS.md`), as the server spells it. */
  readonly path: string;
  /** Its `skill://` URI, as the skill lists it. */
  readonly uri: string;
  /** Its length in bytes, as listed. */
  readonly size: number;
  /** `sha256:` and 64 hex digits. */
  readonly digest: string;
}

/** A skill as listed: its manifest only (no file of it has been read). */
export interface ListedSkill {
  /** The server that serves it: its origin. */
  readonly server: string;
  /**
   * Its name on that server: the frontmatter's `name`, or the skill's path (`acme/pdf-processing`)
   * when two skills of the server share a name.
   */
  readonly name: string;
  /**
   * `<server>.<name>`: how mcpx names it everywhere. Kept per server, so no server's skill ever
   * shadows another's of the same name.
   */
  readonly id: string;
  /** The frontmatter's `description`: the server's text, unchecked. */
  readonly description: string;
  /** Its `SKILL.md`. */
  readonly uri: string;
  /** Every file it lists (its `SKILL.md` first), or `"dynamic"`: files a server resolves on request, unverifiable. */
  readonly files: readonly SkillFileEntry[] | 'dynamic';
  /**
   * The sha256 of the whole manifest (the entry's URI, frontmatter, and every file's URI, size and
   * digest, in a canonical form): what an approval of this skill refers to. Any change to what
   * the skill says or holds changes it.
   */
  readonly fingerprint: string;
  /** The entry as the server listed it (checked by the SDK's rules). */
  readonly entry: Skill;
}

/** A listing entry mcpx refused (the SDK's rules: names, frontmatter, files inside the skill). */
export interface RefusedSkillEntry {
  /** The server that listed it. */
  readonly server: string;
  /** The entry's `SKILL.md` URI, when it had one: the server's text, unchecked. */
  readonly uri?: string;
  /** Why, one clause per broken rule. */
  readonly reason: string;
}

/** What {@link HostSkills.list} found: usable skills, refused entries, and servers that failed. */
export interface SkillsListing {
  /** The skills that passed, servers in the order asked, each server's in its own order. */
  readonly skills: readonly ListedSkill[];
  /** Entries refused at listing; their servers' other skills are still listed. */
  readonly refused: readonly RefusedSkillEntry[];
  /** Servers that could not be asked (not started, or their listing failed), each with why. */
  readonly failures: readonly { readonly server: string; readonly error: McpxError }[];
}

/** A skill loaded: its `SKILL.md` read and verified (size, digest, frontmatter equal to the entry's). */
export interface LoadedSkill {
  /** The skill as listed. */
  readonly skill: ListedSkill;
  /** The whole `SKILL.md`. */
  readonly markdown: string;
  /** The markdown after the frontmatter. */
  readonly body: string;
  /** The frontmatter as parsed from the file: equal to the entry's. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
}

/** One supporting file of a skill, read and verified. */
export interface SkillFileContent {
  /** The skill it belongs to. */
  readonly skill: ListedSkill;
  /** Its path in the skill (`references/FORMS.md`). */
  readonly path: string;
  /** The URI it was read at (the entry's spelling). */
  readonly uri: string;
  /** The MIME type the server gave it, if any. */
  readonly mimeType?: string;
  /** The file as text, when the server sent text or its bytes are UTF-8. */
  readonly text?: string;
  /** Exactly the bytes its digest covers. */
  readonly bytes: Uint8Array;
  /** Size and digest checked; `false` only for a `"dynamic"` skill, which lists no digests. */
  readonly verified: boolean;
}

/** Which servers, and how a request may be cancelled. */
export interface SkillsRequestOptions {
  /** Only these servers (each by name; an unknown or unusable one fails as `host.server()` does). */
  readonly servers?: readonly string[];
  /** Cancels the requests under way. */
  readonly signal?: AbortSignal;
}

/**
 * The servers' skills (SEP-2640) under mcpx's host rules: listing reads each server's manifest
 * only; a skill is loaded by reading its `SKILL.md`, verified; a supporting file is read only
 * after its skill's `SKILL.md` verifies, and only if the skill lists it; names are kept per
 * server. Only servers the host may use are asked (an untrusted project's servers are not).
 */
export interface HostSkills {
  /** Every usable server's skills (or `options.servers`'), from their manifests alone. */
  list(options?: SkillsRequestOptions): Promise<SkillsListing>;
  /** Load one skill: its `SKILL.md`, verified, and its file list. */
  get(server: string, name: string, options?: Pick<SkillsRequestOptions, 'signal'>): Promise<LoadedSkill>;
  /** Read one file the skill lists (`references/FORMS.md`), after its `SKILL.md` verifies. */
  readFile(
    server: string,
    name: string,
    path: string,
    options?: Pick<SkillsRequestOptions, 'signal'>,
  ): Promise<SkillFileContent>;
}
