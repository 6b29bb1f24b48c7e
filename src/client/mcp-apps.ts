/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865) as a client sees it: a tool's
 * `_meta.ui.resourceUri` names a `ui://` HTML resource (`text/html;profile=mcp-app`) a host
 * renders, and `_meta.ui.visibility` says whether the model, the app, or both may call the tool.
 * Clients and servers declare it under `capabilities.extensions` (SEP-2133). The names are the
 * ext-apps SDK's (`@modelcontextprotocol/ext-apps`: `EXTENSION_ID`, `RESOURCE_MIME_TYPE`,
 * `RESOURCE_URI_META_KEY`), kept here so that knowing them loads nothing.
 */

import type { ClientCapabilities } from '@modelcontextprotocol/client';

/** The extension's identifier, the key under `capabilities.extensions`. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of an App's HTML resource. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The URI scheme of an App's resource. */
export const APP_URI_SCHEME = 'ui://';

/** The older, flat key for a tool's UI resource (`_meta["ui/resourceUri"]`), which hosts still read. */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/** What a client that can show Apps declares under `extensions`: `{ mimeTypes: [APP_MIME_TYPE] }` (a fresh copy). */
export function appsClientCapability(): NonNullable<ClientCapabilities['extensions']> {
  return { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } };
}

/** Whether `capabilities` (a client's) declare the extension with the App MIME type. */
export function declaresApps(capabilities: ClientCapabilities | undefined): boolean {
  const declared = (capabilities?.extensions as Record<string, unknown> | undefined)?.[APPS_EXTENSION];
  if (typeof declared !== 'object' || declared === null) return false;
  const { mimeTypes } = declared as { mimeTypes?: unknown };
  return Array.isArray(mimeTypes) && mimeTypes.includes(APP_MIME_TYPE);
}

/**
 * Whether a tool is for its App alone (`_meta.ui.visibility` without `"model"`): hosts keep it
 * from their models. A visibility that is not a list of strings is not trusted to hide anything.
 */
export function isAppOnly(tool: { readonly _meta?: Record<string, unknown> }): boolean {
  const ui = tool._meta?.ui;
  if (typeof ui !== 'object' || ui === null) return false;
  const { visibility } = ui as { visibility?: unknown };
  return (
    Array.isArray(visibility) &&
    visibility.every((v) => typeof v === 'string') &&
    !visibility.includes('model')
  );
}

/**
 * Whether an App may call a tool (`_meta.ui.visibility` absent, the default "model and app", or
 * listing `"app"`): a tool for the model alone (`["model"]`) is refused an App, and so is one whose
 * visibility is not a list (the server said something, and not that an App may call it).
 */
export function isVisibleToApps(tool: { readonly _meta?: Record<string, unknown> }): boolean {
  const ui = tool._meta?.ui;
  if (typeof ui !== 'object' || ui === null) return true;
  const { visibility } = ui as { visibility?: unknown };
  if (visibility === undefined) return true;
  return Array.isArray(visibility) && visibility.includes('app');
}

/**
 * The `ui://` resource of a tool's MCP App (`_meta.ui.resourceUri`, or the older flat key), or
 * undefined when the tool has none (or names something that is not a `ui://` URI).
 */
export function appResourceUri(tool: { readonly _meta?: Record<string, unknown> }): string | undefined {
  const meta = tool._meta;
  const ui = meta?.ui;
  const uri =
    typeof ui === 'object' && ui !== null
      ? (ui as { resourceUri?: unknown }).resourceUri
      : meta?.[LEGACY_RESOURCE_URI_KEY];
  return typeof uri === 'string' && uri.startsWith(APP_URI_SCHEME) ? uri : undefined;
}
