import { isInputRequiredResult, type ReadResourceResult } from '@modelcontextprotocol/server';
import type { DirectoryResource, Skill } from '@modelcontextprotocol/server/ext/skills';
import { ErrorCode, McpxError } from '../errors/index.js';
import {
  createHostSkills,
  type HostSkills,
  type ListedSkill,
  SKILL_ACTION_PREFIX,
  skillAction,
} from '../skills/index.js';
import { consentBeforeCall } from './call-consent.js';
import type { GatewayCore } from './core.js';
import type { DownstreamCall } from './downstream-call.js';
import { splitServer } from './namespace.js';
import { auditedAs } from './skill-tools.js';

/** The skills extension (SEP-2640), as the gateway declares it to its clients. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

const SCHEME = 'skill://';
/** A directory child's `mimeType` (`DIRECTORY_MIME_TYPE` of the SDK's skills module). */
const DIRECTORY_MIME = 'inode/directory';
const MANIFEST = 'SKILL.md';

/**
 * The extension passed on to a client that speaks it: `skills/list` merged across the upstreams,
 * each skill's URIs namespaced per upstream as `skill://<server>/<its path>` (the scheme kept, the
 * skill's name still its folder's last segment), sizes and digests as the upstream listed them.
 * A `resources/read` of such a URI is read at mcpx from its upstream and verified (size, digest,
 * frontmatter, listed) before it goes on; a refused file is an error, never its bytes. Each read is
 * decided as a call of the skill's `skill:<name>` action on its server.
 */
const perCore = new WeakMap<GatewayCore, SkillPassthrough>();

/** The one {@link SkillPassthrough} of `core`. */
export function skillPassthrough(core: GatewayCore): SkillPassthrough {
  let passthrough = perCore.get(core);
  if (!passthrough) {
    passthrough = new SkillPassthrough(core);
    perCore.set(core, passthrough);
  }
  return passthrough;
}

export class SkillPassthrough {
  readonly #core: GatewayCore;
  readonly #skills: HostSkills;

  constructor(core: GatewayCore) {
    this.#core = core;
    const connect = (server: string) => {
      if (!core.servers.includes(server))
        throw new McpxError(ErrorCode.UnknownServer, `no served server '${server}'`, { server });
      return core.registry.use(server, async (c) => c);
    };
    this.#skills = createHostSkills({
      connectAll: async ({ servers }) =>
        Promise.all(
          // Named (a read): waited for; else the servers up now that serve skills.
          (
            servers ?? core.servers.filter((name) => core.registry.liveConnection(name)?.skills.supported)
          ).map(async (server) =>
            connect(server).then(
              (connection) => ({ server, connection }),
              () => ({ server }),
            ),
          ),
        ),
      connect,
    });
  }

  /**
   * Every upstream's skills, namespaced (the ones the policy offers). Not to be cached (`ttlMs: 0`):
   * upstreams come and go; `private`: what a client is offered follows the gateway's policy.
   */
  async list(): Promise<{ skills: Skill[]; ttlMs: number; cacheScope: 'private' }> {
    const { skills } = await this.#skills.list();
    const core = this.#core;
    return {
      ttlMs: 0,
      cacheScope: 'private',
      skills: skills
        .filter((s) => core.guard.offers(s.server, skillAction(s).name))
        // Behind `--server NAME` (and in the daemon, one server per core): the upstream's URIs as they are.
        .map((s) => (core.transparent === undefined ? namespaced(s.server, s.entry) : s.entry)),
    };
  }

  /**
   * `skills/get` of a namespaced `SKILL.md` URI: the skill as its upstream lists it, or (not listed)
   * as its upstream's own `skills/get` answers, checked by the SDK (a valid entry, that very skill);
   * either way only a skill the policy offers, namespaced as in `list()`.
   */
  async get(uri: string): Promise<{ skill: Skill; ttlMs: number; cacheScope: 'private' }> {
    const { server, upstream } = this.#served(uri);
    const core = this.#core;
    const { skills } = await this.#skills.list({ servers: [server] });
    const listed = skills.find((s) => s.uri === upstream);
    const entry =
      listed?.entry ?? (await (await core.registry.use(server, async (c) => c)).skills.get(upstream));
    const name = listed ? skillAction(listed).name : `${SKILL_ACTION_PREFIX}${entry.frontmatter.name}`;
    if (!core.guard.offers(server, name))
      throw new McpxError(ErrorCode.UnknownSkill, `no served skill at ${uri}`, { server });
    return { ttlMs: 0, cacheScope: 'private', skill: this.#outward(server, entry) };
  }

  /**
   * `resources/directory/read` of a namespaced directory of a listed skill, read from its upstream
   * and checked at mcpx first: every child must be inside the directory asked for and, for a skill
   * that lists its files, either one of them (its size as listed) or a folder holding some of them.
   * A child that is not is refused with the whole answer, naming it; nothing of it goes on.
   */
  async readDirectory(
    uri: string,
  ): Promise<{ resources: DirectoryResource[]; ttlMs: number; cacheScope: 'private' }> {
    const { server, upstream } = this.#served(uri);
    const dir = upstream.replace(/\/+$/, '');
    const { skills } = await this.#skills.list({ servers: [server] });
    const skill = skills.find((s) => `${dir}/`.startsWith(rootOf(s.uri)) || `${dir}/` === rootOf(s.uri));
    if (!skill || !this.#core.guard.offers(server, skillAction(skill).name))
      throw new McpxError(ErrorCode.UnknownSkill, `'${server}' lists no skill holding ${upstream}`, {
        server,
      });
    const connection = await this.#core.registry.use(server, async (c) => c);
    if (!connection.skills.directoryRead)
      throw new McpxError(ErrorCode.UnknownSkill, `'${server}' serves no resources/directory/read`, {
        server,
        fixes: [`read the skill's files by the URIs skills/list gives (mcpx skill ${server}.${skill.name})`],
      });
    const { resources } = await connection.skills.readDirectory(upstream);
    const files = skill.files === 'dynamic' ? undefined : new Map(skill.files.map((f) => [f.uri, f.size]));
    for (const child of resources) {
      const inside = child.uri.startsWith(`${dir}/`) && !child.uri.slice(dir.length + 1).includes('/');
      const known =
        files === undefined ||
        (child.mimeType === DIRECTORY_MIME
          ? [...files.keys()].some((f) => f.startsWith(`${child.uri}/`))
          : files.has(child.uri) && (child.size === undefined || child.size === files.get(child.uri)));
      if (!inside || !known)
        throw new McpxError(
          ErrorCode.SkillRefused,
          `refused the directory ${upstream} of skill '${skill.name}' on '${server}': ${child.uri} is ${inside ? 'not a file the skill lists (or not its listed size)' : 'not in that directory'}`,
          { server, skill: skill.name, skillFile: child.uri },
        );
    }
    const outward = (u: string) => (this.#core.transparent === undefined ? namespacedUri(server, u) : u);
    return {
      ttlMs: 0,
      cacheScope: 'private',
      resources: resources.map((child) => ({ ...child, uri: outward(child.uri) })),
    };
  }

  /** A served skill URI's server and upstream URI, or UNKNOWN_SKILL. */
  #served(uri: string): { server: string; upstream: string } {
    const split = this.#split(uri);
    if (!split) throw new McpxError(ErrorCode.UnknownSkill, `no served skill at ${uri}`);
    return split;
  }

  /** An upstream's entry as this gateway's clients see it. */
  #outward(server: string, entry: Skill): Skill {
    return this.#core.transparent === undefined ? namespaced(server, entry) : entry;
  }

  /** Whether `uri` is a skill URI this gateway names (`skill://<served server>/…`). */
  owns(uri: string): boolean {
    return this.#split(uri) !== undefined;
  }

  /** A client's `resources/read` of a namespaced skill URI: read upstream, verified, then passed on. */
  async read(uri: string, call: DownstreamCall): Promise<ReadResourceResult> {
    const split = this.#split(uri);
    if (!split) throw new McpxError(ErrorCode.UnknownSkill, `no served skill at ${uri}`);
    const { server, upstream } = split;
    const { skills } = await this.#skills.list({ servers: [server] });
    const skill = skills.find((s) => upstream.startsWith(rootOf(s.uri)));
    if (!skill)
      throw new McpxError(ErrorCode.UnknownSkill, `'${server}' lists no skill holding ${upstream}`, {
        server,
      });
    const action = skillAction(skill);
    // In the audit log as a call of the skill's action, as the tool pair's loads are.
    const audited = this.#core.audit?.begin({
      who: auditedAs(call),
      server,
      tool: action.name,
      args: { uri: upstream },
    });
    try {
      const refused = await consentBeforeCall(
        this.#core,
        { server, name: action.name, tool: action },
        { uri: upstream },
        call,
        (decision) => audited?.decided(decision),
      );
      if (refused && isInputRequiredResult(refused)) {
        // A 2026-07-28 client is asked in an input round: the read is recorded when it comes again.
        audited?.dropped();
        return refused as unknown as ReadResourceResult;
      }
      if (refused) {
        const text = refused.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
        throw new McpxError(ErrorCode.PermissionDenied, text, { server });
      }
      const result = await this.#readVerified(server, skill, upstream, uri);
      // What a read returned is the skill's text: the log keeps that it was read, not the text.
      audited?.returned({ content: [] });
      return result;
    } catch (error) {
      audited?.failed(error);
      throw error;
    }
  }

  /** The file at `upstream` of `skill`, read and verified, under the client's `uri`. */
  async #readVerified(
    server: string,
    skill: ListedSkill,
    upstream: string,
    uri: string,
  ): Promise<ReadResourceResult> {
    const path = upstream.slice(rootOf(skill.uri).length);
    if (path === MANIFEST) {
      const loaded = await this.#skills.get(server, skill.name);
      return { contents: [{ uri, mimeType: 'text/markdown', text: loaded.markdown }] };
    }
    const file = await this.#skills.readFile(server, skill.name, path);
    return {
      contents: [
        file.text !== undefined
          ? { uri, ...(file.mimeType ? { mimeType: file.mimeType } : {}), text: file.text }
          : {
              uri,
              ...(file.mimeType ? { mimeType: file.mimeType } : {}),
              blob: Buffer.from(file.bytes).toString('base64'),
            },
      ],
    };
  }

  /** `skill://<server>/<rest>` → the served server and the upstream's `skill://<rest>`. */
  #split(uri: string): { server: string; upstream: string } | undefined {
    if (!uri.startsWith(SCHEME)) return undefined;
    const { transparent } = this.#core;
    if (transparent !== undefined) return { server: transparent, upstream: uri };
    const split = splitServer(uri.slice(SCHEME.length), () => this.#core.servers);
    return split && { server: split.server, upstream: `${SCHEME}${split.rest}` };
  }
}

/** `skill://acme/pdf/SKILL.md` → `skill://acme/pdf/`. */
function rootOf(skillUri: string): string {
  return skillUri.slice(0, skillUri.length - MANIFEST.length);
}

/** `skill://<rest>` of `server` → `skill://<server>/<rest>`. */
function namespacedUri(server: string, uri: string): string {
  return `${SCHEME}${encodeURIComponent(server)}/${uri.slice(SCHEME.length)}`;
}

/** An upstream's entry as the client sees it: every URI under `skill://<server>/`, the rest intact. */
function namespaced(server: string, entry: Skill): Skill {
  const map = (uri: string) => namespacedUri(server, uri);
  return {
    ...entry,
    uri: map(entry.uri),
    resources:
      entry.resources === 'dynamic' ? 'dynamic' : entry.resources.map((r) => ({ ...r, uri: map(r.uri) })),
  } as Skill;
}
