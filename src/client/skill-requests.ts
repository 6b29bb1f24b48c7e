import type { Client, RequestOptions } from '@modelcontextprotocol/client';
import type { Skill, SkillVerificationError } from '@modelcontextprotocol/client/ext/skills';
import { ErrorCode, McpxError } from '../errors/index.js';
import type { RequestControl, ServerSkills } from './types.js';

/** How a connection runs one request: its timeout, cancellation and error translation. */
export type RunRequest = <T>(
  method: string,
  control: RequestControl | undefined,
  send: (options: RequestOptions) => Promise<T>,
) => Promise<T>;

/** The SDK's skills module, loaded on first use: most commands never touch skills. */
const sdkSkills = () => import('@modelcontextprotocol/client/ext/skills');

/**
 * {@link ServerSkills} over the SDK's `SkillsClient`, made afresh for each request from the
 * connection's current SDK client (a connection may replace it when its remembered era was stale).
 */
export function serverSkills(server: string, client: () => Client, run: RunRequest): ServerSkills {
  return {
    get supported() {
      // The SDK's check, without loading its module: the extension among the server's capabilities.
      const extensions = client().getServerCapabilities()?.extensions as Record<string, unknown> | undefined;
      const declared = extensions?.['io.modelcontextprotocol/skills'];
      return typeof declared === 'object' && declared !== null;
    },
    async list(control) {
      const { SkillsClient } = await sdkSkills();
      // Asked only of a server that declared the extension: the SDK's list() of any other logs to the console.
      return run('skills/list', control, (o) =>
        new SkillsClient(client(), { skipInvalid: true }).list({}, o),
      );
    },
    get directoryRead() {
      const extensions = client().getServerCapabilities()?.extensions as Record<string, unknown> | undefined;
      const declared = extensions?.['io.modelcontextprotocol/skills'] as
        | { directoryRead?: unknown }
        | undefined;
      return declared?.directoryRead === true;
    },
    async get(uri, control) {
      const { SkillsClient } = await sdkSkills();
      return run('skills/get', control, async (o) => (await new SkillsClient(client()).get(uri, o)).skill);
    },
    async readDirectory(uri, control) {
      const { SkillsClient } = await sdkSkills();
      return run('resources/directory/read', control, (o) =>
        new SkillsClient(client()).readDirectory(uri, o),
      );
    },
    async read(skill, ref, control) {
      const { SkillsClient, SkillVerificationError } = await sdkSkills();
      return run(`resources/read ${skill.uri}`, control, async (o) => {
        try {
          return await new SkillsClient(client()).read(skill, ref, o);
        } catch (error) {
          // Classified here, where the SDK raised it: SKILL_REFUSED with what failed and why.
          if (error instanceof SkillVerificationError) throw refused(server, skill, error);
          throw error;
        }
      });
    },
  };
}

/** The file of `skill` the SDK refused, as mcpx says it: which server, skill and file, and why. */
function refused(server: string, skill: Skill, error: SkillVerificationError): McpxError {
  const name = skill.frontmatter.name;
  const listed = skill.resources === 'dynamic' ? undefined : skill.resources.find((r) => r.uri === error.uri);
  const why = {
    unlisted: 'the skill does not list this file',
    size: 'its size differs from the size the skill lists',
    digest: 'its sha256 digest differs from the digest the skill lists',
    frontmatter: "its frontmatter differs from the skill's entry",
  }[error.reason];
  return new McpxError(
    ErrorCode.SkillRefused,
    `refused ${error.uri} of skill '${name}' on '${server}': ${why} (${error.message})`,
    {
      server,
      skill: name,
      skillFile: error.uri,
      ...(error.reason === 'size' && listed ? { expected: `${listed.size} bytes` } : {}),
      ...(error.reason === 'digest' && listed ? { expected: listed.digest } : {}),
      cause: error,
      causes:
        error.reason === 'unlisted'
          ? ['the file is not part of the skill as the server lists it (a typo, or a path outside the skill)']
          : [
              'the file changed on the server after it was listed',
              'something between mcpx and the server altered it',
            ],
      fixes:
        error.reason === 'unlisted'
          ? [`see the skill's files: mcpx skill ${server}.${name}`]
          : ['do not use this skill until its server serves what it lists; tell its maintainer'],
    },
  );
}
