import type { AuditApp } from '../audit/index.js';
import { APP_MIME_TYPE, APP_URI_SCHEME, appResourceUri } from '../client/index.js';
import { ErrorCode, errorToJson, McpxError } from '../errors/index.js';
import type { Host } from '../host/index.js';
import { declaredSources } from './app-csp.js';
import type { AppFrames } from './app-frames.js';
import type { AuditView } from './audit-view.js';
import type { CallHistory, ConsoleCall } from './call-history.js';
import type { PageQuestions } from './page-questions.js';

/** What the console's JSON API answers with: the host, the calls made, the questions waiting. */
export interface ConsoleApiDeps {
  readonly host: Host;
  readonly calls: CallHistory;
  readonly audit: AuditView;
  readonly questions: PageQuestions;
  /** The second origin Apps are served from. */
  readonly frames: AppFrames;
  readonly signal?: AbortSignal;
}

/** An answer of the API: a status and a JSON body. */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * `GET /api/state`: every server with its state, era and error, its tools, the calls, this
 * session's audit records (argument names only, as the file keeps them by default), the questions.
 */
export async function consoleState(deps: ConsoleApiDeps): Promise<unknown> {
  const { host } = deps;
  const registry = await host.registry();
  const servers = registry.list().map((s) => {
    const error = s.listingError ?? s.error;
    return {
      name: s.name,
      state: s.condition,
      transport: s.config.transport,
      era: s.connection?.era,
      protocolVersion: s.connection?.protocolVersion,
      serverInfo: s.connection?.serverInfo,
      error: error ? errorToJson(error).error : undefined,
      tools: s.tools.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        app: appResourceUri(t),
      })),
    };
  });
  const untrusted = (await host.untrusted()).map((s) => s.name);
  const audit = deps.audit.list().map(({ arguments: _values, ...record }) => record);
  return { servers, untrusted, calls: deps.calls.list(), audit, questions: deps.questions.pending() };
}

/** `POST /api/call`: one call through `Host.callTool`, the path `mcpx call` takes; recorded in the history. */
export async function callFromPage(deps: ConsoleApiDeps, body: unknown): Promise<ApiAnswer> {
  const { server, tool, args } = (body ?? {}) as Record<string, unknown>;
  if (typeof server !== 'string' || typeof tool !== 'string' || !isRecord(args))
    return badRequest('a call needs {"server": string, "tool": string, "args": object}');
  return { status: 200, body: await recordedCall(deps, server, tool, args) };
}

/** A call through `Host.callTool` as the console (`client: console`), kept in the calls list. */
async function recordedCall(
  deps: ConsoleApiDeps,
  server: string,
  tool: string,
  args: Record<string, unknown>,
  app?: AuditApp,
): Promise<ConsoleCall> {
  const call = deps.calls.begin(server, tool, args);
  try {
    const result = await deps.host.callTool(server, tool, args, {
      client: 'console',
      ...(app ? { app } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    deps.calls.returned(call, result);
  } catch (error) {
    deps.calls.failed(call, error);
  }
  return call;
}

/** `GET /api/resources` or `/api/prompts`: each usable server's list, or why it could not be listed. */
export async function listEach(deps: ConsoleApiDeps, kind: 'resources' | 'prompts'): Promise<ApiAnswer> {
  const registry = await deps.host.registry();
  const usable = registry.list().filter((s) => s.usable && s.connection?.capabilities[kind] !== undefined);
  const lists = await Promise.all(
    usable.map(async (s) => {
      try {
        const connection = await deps.host.connect(s.config, { listTools: false });
        const items =
          kind === 'resources'
            ? await connection.listResources(deps.signal ? { signal: deps.signal } : {})
            : await connection.listPrompts(deps.signal ? { signal: deps.signal } : {});
        return { server: s.name, items };
      } catch (error) {
        return { server: s.name, error: errorToJson(error).error };
      }
    }),
  );
  return { status: 200, body: lists };
}

/** `GET /api/read?server=…&uri=…`: one resource, as the server gave it (the page renders it by type). */
export async function readFromPage(deps: ConsoleApiDeps, params: URLSearchParams): Promise<ApiAnswer> {
  const server = params.get('server');
  const uri = params.get('uri');
  if (!server || !uri) return badRequest('a read needs ?server=NAME&uri=URI');
  try {
    const connection = await deps.host.connect(await deps.host.server(server), { listTools: false });
    return {
      status: 200,
      body: await connection.readResource(uri, deps.signal ? { signal: deps.signal } : {}),
    };
  } catch (error) {
    return { status: 502, body: errorToJson(error) };
  }
}

/** The most HTML an App's page may be. */
const APP_HTML_LIMIT = 2 * 1024 * 1024;

/**
 * `POST /api/app`: read an App's `ui://` resource from its server and keep it for one load on
 * the Apps' own origin (`AppFrames`); answers with the URL the page's sandboxed frame loads and
 * what the resource declared (its CSP sources). Only `text/html;profile=mcp-app` text is served.
 */
export async function openAppFromPage(deps: ConsoleApiDeps, body: unknown): Promise<ApiAnswer> {
  const { server, uri } = (body ?? {}) as Record<string, unknown>;
  if (typeof server !== 'string' || typeof uri !== 'string' || !uri.startsWith(APP_URI_SCHEME))
    return badRequest(`an app needs {"server": string, "uri": "${APP_URI_SCHEME}…"}`);
  try {
    const connection = await deps.host.connect(await deps.host.server(server), { listTools: false });
    const read = await connection.readResource(uri, deps.signal ? { signal: deps.signal } : {});
    const page = read.contents.find((c) => c.uri === uri && 'text' in c) ?? read.contents[0];
    if (!page || !('text' in page) || typeof page.text !== 'string' || page.mimeType !== APP_MIME_TYPE)
      throw new McpxError(
        ErrorCode.Usage,
        `${uri} of '${server}' is not an App page (${APP_MIME_TYPE} text)`,
        {
          server,
        },
      );
    if (page.text.length > APP_HTML_LIMIT)
      throw new McpxError(ErrorCode.MessageTooLarge, `${uri} of '${server}' is larger than 2 MiB`, {
        server,
      });
    const sources = declaredSources(page._meta?.ui);
    return { status: 200, body: { server, uri, frame: deps.frames.add(page.text, sources), csp: sources } };
  } catch (error) {
    return { status: 502, body: errorToJson(error) };
  }
}

/**
 * `POST /api/app-call`: an App's own `tools/call` (`{server, tool, args, app: {uri, tool?}}`, the
 * App's page and the tool it was opened for), through `Host.callTool` as the App's: only a tool
 * of its own server that Apps may call, decided by the policy (a question waits on the page),
 * audited as the console's with the App named. A refusal is answered 403 and not listed.
 */
export async function appCallFromPage(deps: ConsoleApiDeps, body: unknown): Promise<ApiAnswer> {
  const { server, tool, args, app } = (body ?? {}) as Record<string, unknown>;
  const { uri, tool: openedFor } = (isRecord(app) ? app : {}) as Record<string, unknown>;
  if (
    typeof server !== 'string' ||
    typeof tool !== 'string' ||
    !isRecord(args) ||
    typeof uri !== 'string' ||
    !uri.startsWith(APP_URI_SCHEME) ||
    (openedFor !== undefined && typeof openedFor !== 'string')
  )
    return badRequest(
      'an app call needs {"server": string, "tool": string, "args": object, "app": {"uri": "ui://…", "tool"?: string}}',
    );
  const call = await recordedCall(deps, server, tool, args, {
    uri,
    ...(typeof openedFor === 'string' ? { tool: openedFor } : {}),
  });
  return call.error?.code === ErrorCode.PermissionDenied || call.error?.code === ErrorCode.UnknownTool
    ? { status: 403, body: { error: call.error } }
    : { status: 200, body: call };
}

/** `POST /api/answer`: the person's answer to a permission question. */
export function answerFromPage(deps: ConsoleApiDeps, body: unknown): ApiAnswer {
  const { id, choice } = (body ?? {}) as Record<string, unknown>;
  if (typeof id !== 'number' || typeof choice !== 'string')
    return badRequest('an answer needs {"id", "choice"}');
  if (!deps.questions.answer(id, choice))
    return badRequest('no such question waits, or that is not one of its choices');
  return { status: 200, body: { answered: id } };
}

function badRequest(message: string): ApiAnswer {
  return { status: 400, body: errorToJson(new McpxError(ErrorCode.Usage, message)) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
