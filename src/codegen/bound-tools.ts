import type { CallToolResult, GetPromptResult, ReadResourceResult, Tool } from '@modelcontextprotocol/client';
import { toolSwitchedOff } from '../config/index.js';
import { ErrorCode, McpxError } from '../errors/index.js';
import type { Host, HostCallOptions, ServerConnection } from '../host/index.js';
import { renderContent } from '../text/index.js';
import { guardedCall, PROMPT_ACTION, RESOURCE_ACTIONS } from '../tools/index.js';
import { catalogueDrift, driftError, type ToolDrift, toolDrift } from './drift.js';
import type { GeneratedManifest, ListedCatalogue } from './manifest.js';

/** How a generated module's functions call through the host. */
export interface BindOptions {
  /**
   * Call a tool whose definition changed since the code was generated. Default: such a call
   * is refused (`TOOLS_CHANGED`) with what changed, before anything reaches the server.
   */
  readonly allowChanged?: boolean;
}

/** A generated module's calls, bound to one host and one server's manifest. */
export interface BoundTools {
  /** Call `tool` (the server's own name) with `args`: the whole result, `isError` included. */
  call(tool: string, args: unknown, options?: HostCallOptions): Promise<CallToolResult>;
  /**
   * Call a tool that declares an `outputSchema`: its `structuredContent`. A tool's error is
   * thrown (`TOOL_ERROR`), and so is a result without structured content (`INVALID_TOOL_OUTPUT`).
   */
  structured<T>(tool: string, args: unknown, options?: HostCallOptions): Promise<T>;
  /**
   * Read the resource at `uri`, put to the guard and audited as `resources/read` (as an agent's
   * `read_resource` is).
   */
  read(uri: string, options?: HostCallOptions): Promise<ReadResourceResult>;
  /**
   * Read the resource `template` (RFC 6570, as the server wrote it) gives with `variables`:
   * each `{var}` percent-encoded; then as `read`.
   */
  readTemplate(
    template: string,
    variables: Readonly<Record<string, string | readonly string[]>>,
    options?: HostCallOptions,
  ): Promise<ReadResourceResult>;
  /** Get the prompt `name` (the server's own name) filled in with `args`, put to the guard and audited as `prompts/get`. */
  prompt(name: string, args: unknown, options?: HostCallOptions): Promise<GetPromptResult>;
  /** How the server's tools, resources and prompts differ now from the manifest (empty: they match). */
  drift(): Promise<ToolDrift[]>;
}

/**
 * The runtime of a module `mcpx generate` wrote: each call goes to the manifest's server
 * through `host`, as an agent's call does. The server must be one the host may use (trust);
 * the call is put to `host.guard()` (the level, the config's tool lists, the profile,
 * `excludeTools`, and the approver's consent) and recorded by `host.audit()`; it reaches the
 * server through the host's registry (the keep-alive daemon where the config says). A tool
 * whose definition changed since generation is refused unless `allowChanged`.
 *
 * @example
 * const tools = boundTools(host, manifest);
 * const result = await tools.call('echo', { message: 'hi' });
 */
export function boundTools(host: Host, manifest: GeneratedManifest, options: BindOptions = {}): BoundTools {
  const server = manifest.server;
  const listed = () => listedTools(host, server);
  const request = <T>(
    action: Tool,
    args: Record<string, unknown>,
    callOptions: HostCallOptions,
    send: (connection: ServerConnection, control: { signal?: AbortSignal }) => Promise<T>,
  ) => guardedRequest(host, server, { action, args, callOptions }, send);

  const call = async (tool: string, args: unknown, callOptions: HostCallOptions = {}) => {
    const generated = manifest.tools.find((t) => t.name === tool);
    if (!generated) {
      throw new McpxError(
        ErrorCode.UnknownTool,
        `'${tool}' is not among the tools generated for '${server}'`,
        {
          server,
          tool,
          fixes: [`generate again: mcpx generate ${server}`],
        },
      );
    }
    const checked = argumentsRecord(args, server, tool);
    const config = await host.server(server);
    // Switched off in the config: the registry does not list it, and the guard says why.
    const switchedOff = toolSwitchedOff(config, tool) !== undefined;
    const current = switchedOff ? generated.definition : (await listed()).find((t) => t.name === tool);
    const drift = switchedOff ? undefined : toolDrift(generated, current);
    if (drift && !(options.allowChanged && current)) throw driftError(server, [drift], { atRunTime: true });
    const { signal, onProgress, onTaskStatus, client } = callOptions;
    const registry = await host.registry();
    return guardedCall(
      { guard: await host.guard(), audit: { trail: host.audit(), who: { client: client ?? 'library' } } },
      { server, tool: current ?? generated.definition, args: checked },
      signal,
      () =>
        registry.callTool(server, tool, checked, {
          ...(signal ? { signal } : {}),
          ...(onProgress ? { onProgress } : {}),
          ...(onTaskStatus ? { onTaskStatus } : {}),
        }),
    );
  };

  const bound: BoundTools = {
    call,
    async structured<T>(tool: string, args: unknown, callOptions?: HostCallOptions): Promise<T> {
      const result = await call(tool, args, callOptions);
      if (result.isError) {
        throw new McpxError(ErrorCode.ToolError, renderContent(result.content ?? []) || `'${tool}' failed`, {
          server,
          tool,
        });
      }
      if (result.structuredContent === undefined) {
        throw new McpxError(
          ErrorCode.InvalidToolOutput,
          `'${tool}' of '${server}' declares an output schema but returned no structured content`,
          { server, tool },
        );
      }
      return result.structuredContent as T;
    },
    read: (uri, callOptions = {}) =>
      request(RESOURCE_ACTIONS.read, { uri }, callOptions, (c, control) => c.readResource(uri, control)),
    readTemplate: async (template, variables, callOptions = {}) => {
      // The SDK loads when a server is first reached, never with `import … from 'mcpx'` (library-entry.test.ts).
      const { UriTemplate } = await import('@modelcontextprotocol/client');
      const uri = new UriTemplate(template).expand(
        Object.fromEntries(
          Object.entries(variables).map(([k, v]) => [k, typeof v === 'string' ? v : [...v]]),
        ),
      );
      return request(RESOURCE_ACTIONS.read, { uri }, callOptions, (c, control) =>
        c.readResource(uri, control),
      );
    },
    prompt: (name, args, callOptions = {}) => {
      const checked = promptArguments(args, server, name);
      return request(PROMPT_ACTION, { name, arguments: checked }, callOptions, (c, control) =>
        c.getPrompt(name, checked, control),
      );
    },
    async drift() {
      const registry = await host.registry();
      const [tools, [resources, resourceTemplates, prompts]] = await Promise.all([
        listed(),
        registry.use(server, (c) =>
          Promise.all([c.listResources(), c.listResourceTemplates(), c.listPrompts()]),
        ),
      ]);
      const catalogue: ListedCatalogue = { tools, resources, resourceTemplates, prompts };
      return catalogueDrift(manifest, catalogue);
    },
  };
  return bound;
}

/** The server's tools as the host lists them now (the server connected on first use). */
async function listedTools(host: Host, server: string): Promise<readonly Tool[]> {
  const config = await host.server(server);
  await host.connect(config);
  const registry = await host.registry();
  await registry.toolsSettled(server);
  const { tools, listingError } = registry.status(server);
  if (listingError) throw listingError;
  return tools;
}

/**
 * A resource read or a prompt, as `read_resource` makes them: the server must be one the host
 * may use, the guard decides `action` (`resources/read`, `prompts/get`) with `args` and the audit
 * log records it; it reaches the server through the host's registry.
 */
async function guardedRequest<T>(
  host: Host,
  server: string,
  request: {
    readonly action: Tool;
    readonly args: Record<string, unknown>;
    readonly callOptions: HostCallOptions;
  },
  send: (connection: ServerConnection, control: { signal?: AbortSignal }) => Promise<T>,
): Promise<T> {
  await host.server(server);
  const { signal, client } = request.callOptions;
  const registry = await host.registry();
  return guardedCall(
    { guard: await host.guard(), audit: { trail: host.audit(), who: { client: client ?? 'library' } } },
    { server, tool: request.action, args: request.args },
    signal,
    () => registry.use(server, (c) => send(c, signal ? { signal } : {})),
  );
}

/** A prompt's arguments: strings by name, as MCP sends them; anything else is refused first. */
function promptArguments(args: unknown, server: string, prompt: string): Record<string, string> {
  const record = args === undefined ? {} : args;
  if (
    typeof record === 'object' &&
    record !== null &&
    !Array.isArray(record) &&
    Object.values(record).every((v) => typeof v === 'string')
  )
    return { ...(record as Record<string, string>) };
  throw new McpxError(
    ErrorCode.InvalidArguments,
    `the arguments of the prompt '${prompt}' must be strings by name`,
    {
      server,
      fixes: ['pass an object whose keys are the arguments and whose values are strings'],
    },
  );
}

/** The arguments as the object a call sends; anything else is refused before the server is asked. */
function argumentsRecord(args: unknown, server: string, tool: string): Record<string, unknown> {
  if (args === undefined) return {};
  if (typeof args === 'object' && args !== null && !Array.isArray(args))
    return args as Record<string, unknown>;
  throw new McpxError(ErrorCode.InvalidArguments, `the arguments of '${tool}' must be an object`, {
    server,
    tool,
    fixes: ['pass an object whose keys are the parameters'],
  });
}
