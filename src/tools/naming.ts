import { createHash } from 'node:crypto';
import { stripHidden, stripTerminalControls } from '../text/index.js';

/**
 * How agent tool names are built: `mcp_<server>_<tool>` (valid for every LLM
 * provider), `<server>.<tool>` (readable, for hosts that accept dots —
 * OpenAI and Anthropic do not), or `<server>__<tool>` (the gateway's names, the
 * convention MCP clients already show for namespaced tools).
 */
export type NamingStyle = 'prefixed' | 'dotted' | 'namespaced';

/** A tool by the source it comes from and its own name, before public names are given. */
export interface QualifiedTool {
  /** The tool source (an MCP server's name, or an in-process source's id). */
  readonly source: string;
  readonly tool: string;
}

const MAX_LENGTH = 64;
const HASH_LENGTH = 6;

function shortHash(source: string, tool: string): string {
  return createHash('sha256').update(`${source}\0${tool}`).digest('hex').slice(0, HASH_LENGTH);
}

/**
 * Invisible characters go (a hidden character must not become a visible
 * `_`), accents are dropped (`naïve` → `naive`), anything else outside the
 * provider alphabet becomes `_`.
 */
function sanitize(text: string, style: NamingStyle): string {
  const allowed = style === 'dotted' ? /[^a-zA-Z0-9_.-]/g : /[^a-zA-Z0-9_-]/g;
  return stripHidden(stripTerminalControls(text))
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(allowed, '_');
}

/** The name before collision handling: sanitized, and whether sanitizing changed it. */
function baseName({ source, tool }: QualifiedTool, style: NamingStyle): { name: string; changed: boolean } {
  const raw =
    style === 'dotted'
      ? `${source}.${tool}`
      : style === 'namespaced'
        ? `${source}__${tool}`
        : `mcp_${source}_${tool}`;
  const name =
    style === 'dotted' ? `${sanitize(source, style)}.${sanitize(tool, style)}` : sanitize(raw, style);
  return { name, changed: name !== raw };
}

function withHash(name: string, hash: string): string {
  return `${name.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}

/**
 * Provider-valid, collision-free names for a set of tools, deterministic for
 * the same set whatever its order: each is `^[a-zA-Z0-9_-]{1,64}$` (dots too
 * in the dotted style). A name gets a stable 6-character hash of its source
 * and tool when it had to be shortened, or when it collides with another and
 * is not the one name of its group that needed no sanitizing (`mcp_git_hub_search`
 * from `git`/`hub_search` and `git_hub`/`search`: both get a hash). The map
 * keeps the order of `tools`.
 */
export function assignToolNames(
  tools: readonly QualifiedTool[],
  style: NamingStyle = 'prefixed',
): Map<string, QualifiedTool> {
  const bases = tools.map((t) => ({ tool: t, ...baseName(t, style) }));
  const groups = new Map<string, { total: number; unchanged: number }>();
  for (const b of bases) {
    const group = groups.get(b.name) ?? { total: 0, unchanged: 0 };
    group.total += 1;
    if (!b.changed) group.unchanged += 1;
    groups.set(b.name, group);
  }
  const chosen = bases.map((b) => {
    const group = groups.get(b.name) ?? { total: 1, unchanged: 1 };
    const keepsPlainName = group.total === 1 || (group.unchanged === 1 && !b.changed);
    const name =
      b.name.length > MAX_LENGTH || !keepsPlainName
        ? withHash(b.name, shortHash(b.tool.source, b.tool.tool))
        : b.name;
    return { ...b, name };
  });
  // The same tool listed twice (or a 24-bit hash clash): the later one in a fixed order gets another hash.
  const order = [...chosen].sort(
    (x, y) => compare(x.tool.source, y.tool.source) || compare(x.tool.tool, y.tool.tool),
  );
  const taken = new Set<string>();
  for (const c of order) {
    let salt = 0;
    while (taken.has(c.name))
      c.name = withHash(c.name, shortHash(c.tool.source, `${c.tool.tool}\0${++salt}`));
    taken.add(c.name);
  }
  return new Map(chosen.map((c) => [c.name, c.tool]));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
