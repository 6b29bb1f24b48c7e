/**
 * MCP Apps through the gateway: the URIs an upstream's tools and results name, in the client's
 * terms (`namespace.ts`), with everything else about them (`_meta.ui`'s visibility, a resource's
 * MIME type and `_meta`) left as the upstream wrote it. A client reads what it is given back
 * through `resources/read`, which maps it to the upstream's own URI.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { LEGACY_RESOURCE_URI_KEY } from '../client/index.js';
import { isAppUri, type Namespace } from './namespace.js';

type Meta = Record<string, unknown>;

const isObject = (value: unknown): value is Meta =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A tool's UI link in the client's terms: `undefined` (left out) for one that is no App URI. */
function linked(value: unknown, server: string, namespace: Namespace): string | undefined {
  return typeof value === 'string' && isAppUri(value) ? namespace.uri(server, value) : undefined;
}

/**
 * `tool` as a client of the namespaced gateway sees it: its `_meta.ui.resourceUri` (and the older
 * `_meta["ui/resourceUri"]`) named as `ui://<server>/…`. A link that is no `ui://` URI a client
 * could hold is dropped: the tool stays, as a tool without a UI, and its link can name nothing
 * outside its own server. The same object when the tool has no link.
 */
export function namespacedTool(tool: Tool, server: string, namespace: Namespace): Tool {
  const meta = tool._meta as Meta | undefined;
  if (!meta) return tool;
  const ui = meta.ui;
  const hasUiLink = isObject(ui) && 'resourceUri' in ui;
  const hasLegacy = LEGACY_RESOURCE_URI_KEY in meta;
  if (!hasUiLink && !hasLegacy) return tool;
  const next: Meta = { ...meta };
  if (hasUiLink) {
    const { resourceUri, ...rest } = ui;
    const uri = linked(resourceUri, server, namespace);
    next.ui = uri === undefined ? rest : { ...rest, resourceUri: uri };
  }
  if (hasLegacy) {
    const uri = linked(meta[LEGACY_RESOURCE_URI_KEY], server, namespace);
    if (uri === undefined) delete next[LEGACY_RESOURCE_URI_KEY];
    else next[LEGACY_RESOURCE_URI_KEY] = uri;
  }
  return { ...tool, _meta: next };
}

/**
 * `result` with the URIs of its resource links and embedded resources in the client's terms, so
 * the client can read them through the gateway. The same object when it names none.
 */
export function namespacedResult(
  result: CallToolResult,
  server: string,
  namespace: Namespace,
): CallToolResult {
  const { content } = result;
  if (
    !Array.isArray(content) ||
    !content.some((block) => block.type === 'resource_link' || block.type === 'resource')
  )
    return result;
  return {
    ...result,
    content: content.map((block) => {
      if (block.type === 'resource_link' && typeof block.uri === 'string')
        return { ...block, uri: namespace.uri(server, block.uri) };
      if (block.type === 'resource' && isObject(block.resource) && typeof block.resource.uri === 'string')
        return { ...block, resource: { ...block.resource, uri: namespace.uri(server, block.resource.uri) } };
      return block;
    }),
  };
}
