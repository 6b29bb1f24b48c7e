import type { Tool } from '@modelcontextprotocol/client';
import type { AuditCaller, AuditTrail } from '../audit/index.js';
import { suggest } from '../config/index.js';
import { ErrorCode, McpxError, toMcpxError } from '../errors/index.js';
import type { ToolCallGuard } from '../permissions/index.js';
import type { ServerRegistry } from '../registry/index.js';
import { forModel } from '../text/index.js';
import type { AgentTool } from './agent-tools.js';
import { argumentsObject } from './arguments-object.js';
import { resourceContentBlocks } from './chat-parts.js';
import { guardedCall } from './guarded-call.js';
import { type AgentToolResult, convertToolResult, DEFAULT_MAX_TEXT_LENGTH, truncateText } from './result.js';
import type { ToolCallOptions } from './tool-source.js';

/** The agent tool that lists servers' resources (offered with `resources: true`). */
export const LIST_RESOURCES_TOOL = 'list_resources';
/** The agent tool that reads one server's resource (offered with `resources: true`). */
export const READ_RESOURCE_TOOL = 'read_resource';

/** Entries of one `list_resources` answer. */
export const RESOURCE_PAGE_SIZE = 50;

/**
 * What the permission guard is asked about: a resource listing or read is a
 * request to that server like a tool call, under these names (MCP's method
 * names, which no tool can have). `deny_tools: ["resources/read"]` keeps a
 * server's resources from agents; an `allow_tools` list must name them to allow them.
 */
export const RESOURCE_ACTIONS = {
  list: {
    name: 'resources/list',
    description: 'List the resources and resource templates of this server',
    inputSchema: { type: 'object' },
  },
  read: {
    name: 'resources/read',
    description: 'Read one resource of this server by its URI',
    inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
  },
} as const satisfies Record<string, Tool>;

const definitions: readonly AgentTool[] = [
  {
    name: LIST_RESOURCES_TOOL,
    description: `List the resources (documents, files, data) the MCP servers offer, with their URIs, and the URI templates they accept. Read one with ${READ_RESOURCE_TOOL}. Returns up to ${RESOURCE_PAGE_SIZE} entries; pass offset for more.`,
    parameters: {
      type: 'object',
      properties: {
        server: { type: 'string', description: 'only this server (default: every server)' },
        offset: { type: 'integer', minimum: 0, description: 'entries to skip (default 0)' },
      },
    },
  },
  {
    name: READ_RESOURCE_TOOL,
    description: `Read a resource of an MCP server by its URI (one ${LIST_RESOURCES_TOOL} gave, or a URI template filled in). Returns its text; images as images.`,
    parameters: {
      type: 'object',
      properties: {
        server: { type: 'string', description: 'the server that offers it' },
        uri: { type: 'string', description: 'the resource URI' },
      },
      required: ['server', 'uri'],
    },
  },
];

export interface ResourceToolsOptions {
  readonly guard: ToolCallGuard;
  /** Each listing and read is recorded here, as a tool call of `resources/list` or `resources/read`. */
  readonly audit?: { readonly trail: AuditTrail; readonly who: AuditCaller };
  readonly agentId?: string;
  /** The servers the agent may use now. */
  readonly servers: () => readonly string[];
  /**
   * Whether the policy offers a server's resources at all (`resources/read` not left out by a
   * profile, an exclusion or the entry's lists): a server it hides is neither listed nor read.
   */
  readonly offers?: (server: string, tool: string) => boolean;
  /** Longest text of a result, in characters (default 100,000). */
  readonly maxTextLength?: number;
}

/** The resource pair of an agent tool set (see `AgentToolsOptions.resources`). */
export interface ResourceTools {
  /** Both tools while some usable server declares resources; none otherwise. */
  readonly tools: readonly AgentTool[];
  has(name: string): boolean;
  call(name: string, args: unknown, options?: ToolCallOptions): Promise<AgentToolResult>;
}

interface Entry {
  readonly server: string;
  readonly line: string;
}

/**
 * `list_resources` and `read_resource` over the servers of `registry`: every
 * listing and read is decided by the guard first (a denied or unconsented
 * server's resources are neither listed nor read), names and descriptions are
 * cleaned like tool descriptions, contents converted like tool results.
 * Long because list_resources and read_resource share paging, the guard's decisions and the audit in
 * one closure.
 */
export function createResourceTools(registry: ServerRegistry, options: ResourceToolsOptions): ResourceTools {
  const offersResources = (name: string) =>
    (options.offers?.(name, RESOURCE_ACTIONS.read.name) ?? true) &&
    registry.list(options.agentId).some((s) => s.name === name && s.connection?.capabilities.resources);
  const pick = (raw: unknown): string => {
    const servers = options.servers();
    const name = typeof raw === 'string' ? raw : '';
    if (servers.includes(name)) return name;
    const guess = name ? suggest(name, servers) : undefined;
    throw new McpxError(
      ErrorCode.UnknownServer,
      name ? `no server named '${name}'${guess ? ` — did you mean '${guess}'?` : ''}` : 'name a server',
      { fixes: [servers.length ? `the servers: ${servers.join(', ')}` : 'no server is available'] },
    );
  };
  /** Decided by the guard, then run; audited from the moment it is asked for, like a tool call. */
  const guarded = <T>(
    server: string,
    tool: Tool,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    run: () => Promise<T>,
  ): Promise<T> => guardedCall(options, { server, tool, args }, signal, run);

  const listOne = async (server: string, signal?: AbortSignal): Promise<Entry[]> => {
    const control = signal ? { signal } : {};
    const [resources, templates] = await guarded(server, RESOURCE_ACTIONS.list, {}, signal, () =>
      registry.use(
        server,
        (c) => Promise.all([c.listResources(control), c.listResourceTemplates(control)]),
        options.agentId,
      ),
    );
    const about = (title: string | undefined, mime: string | undefined, description: string | undefined) =>
      `${title ? `  ${title}` : ''}${mime ? ` (${mime})` : ''}${description ? ` — ${description}` : ''}`;
    return [
      ...resources.map((r) => ({
        server,
        line: forModel(`${server}  ${r.uri}${about(r.title ?? r.name, r.mimeType, r.description)}`),
      })),
      ...templates.map((t) => ({
        server,
        line: forModel(
          `${server}  template ${t.uriTemplate}${about(t.title ?? t.name, t.mimeType, t.description)}`,
        ),
      })),
    ];
  };

  const list = async (args: Record<string, unknown>, signal?: AbortSignal): Promise<string> => {
    const servers =
      args.server === undefined ? options.servers().filter(offersResources) : [pick(args.server)];
    const offset = typeof args.offset === 'number' && args.offset > 0 ? Math.floor(args.offset) : 0;
    const entries: Entry[] = [];
    const problems: string[] = [];
    for (const server of servers) {
      try {
        entries.push(...(await listOne(server, signal)));
      } catch (error) {
        if (signal?.aborted) throw error;
        // One server refused or broken does not hide the others.
        problems.push(forModel(`${server}: not listed — ${toMcpxError(error).message}`));
      }
    }
    const page = entries.slice(offset, offset + RESOURCE_PAGE_SIZE);
    const lines = [
      'server  uri  title (type) — description',
      ...page.map((e) => e.line),
      ...(entries.length === 0 ? ['(no resources)'] : []),
      ...(offset + page.length < entries.length
        ? [
            `showing ${offset + 1}–${offset + page.length} of ${entries.length}; call ${LIST_RESOURCES_TOOL} with offset ${offset + page.length} for more`,
          ]
        : []),
      ...problems,
    ];
    return lines.join('\n');
  };

  const read = async (args: Record<string, unknown>, signal?: AbortSignal): Promise<AgentToolResult> => {
    const server = pick(args.server);
    if (typeof args.uri !== 'string' || args.uri === '') {
      throw new McpxError(ErrorCode.InvalidArguments, `${READ_RESOURCE_TOOL} needs a uri`, {
        server,
        fixes: [`give the uri of a resource ${LIST_RESOURCES_TOOL} showed`],
      });
    }
    const uri = args.uri;
    const result = await guarded(server, RESOURCE_ACTIONS.read, { uri }, signal, () =>
      registry.use(server, (c) => c.readResource(uri, signal ? { signal } : {}), options.agentId),
    );
    const blocks = resourceContentBlocks(result);
    // Several contents (a folder, a bundle): each says which URI it is.
    const content =
      blocks.length > 1
        ? blocks.flatMap((block, i) => [
            { type: 'text' as const, text: `--- ${result.contents[i]?.uri ?? uri}` },
            block,
          ])
        : blocks;
    return convertToolResult(
      { content: content.length ? content : [{ type: 'text', text: `(${uri} is empty)` }] },
      {
        server,
        tool: RESOURCE_ACTIONS.read.name,
        ...(options.maxTextLength ? { maxTextLength: options.maxTextLength } : {}),
      },
    );
  };

  return {
    get tools() {
      return options.servers().some(offersResources) ? definitions : [];
    },
    has: (name) => name === LIST_RESOURCES_TOOL || name === READ_RESOURCE_TOOL,
    async call(name, raw, callOptions = {}) {
      const args = argumentsObject(raw, name);
      if (name === READ_RESOURCE_TOOL) return read(args, callOptions.signal);
      const listing = await list(args, callOptions.signal);
      const { text, truncated } = truncateText(listing, options.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH);
      return { parts: [{ type: 'text', text }], text, truncated, isError: false };
    },
  };
}
