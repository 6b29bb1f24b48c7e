import { createHash } from 'node:crypto';

/**
 * How agent tool names are built: `mcp_<server>_<tool>` (valid for every LLM
 * provider) or `<server>.<tool>` (readable, for hosts that accept dots —
 * OpenAI and Anthropic do not).
 */
export type NamingStyle = 'prefixed' | 'dotted';

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

function sanitize(text: string, style: NamingStyle): string {
  const allowed = style === 'dotted' ? /[^a-zA-Z0-9_.-]/g : /[^a-zA-Z0-9_-]/g;
  return text.normalize('NFKC').replace(allowed, '_');
}

/** The name before collision handling: sanitized, and whether sanitizing changed it. */
function baseName({ source, tool }: QualifiedTool, style: NamingStyle): { name: string; changed: boolean } {
  const raw = style === 'dotted' ? `${source}.${tool}` : `mcp_${source}_${tool}`;
  const name =
    style === 'dotted' ? `${sanitize(source, style)}.${sanitize(tool, style)}` : sanitize(raw, style);
  return { name, changed: name !== raw };
}

function withHash(name: string, hash: string): string {
  return `${name.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}

/**
 * Provider-valid, collision-free names for a set of tools, deterministic for
 * the same set: each is `^[a-zA-Z0-9_-]{1,64}$` (dots too in the dotted
 * style). A name that had to be shortened, or that sanitizing made collide
 * with another, gets a stable 6-character hash of its source and tool.
 */
export function assignToolNames(
  tools: readonly QualifiedTool[],
  style: NamingStyle = 'prefixed',
): Map<string, QualifiedTool> {
  const bases = tools.map((t) => ({ tool: t, ...baseName(t, style) }));
  const counts = new Map<string, number>();
  for (const b of bases) counts.set(b.name, (counts.get(b.name) ?? 0) + 1);
  const byName = new Map<string, QualifiedTool>();
  for (const b of bases) {
    const collides = (counts.get(b.name) ?? 0) > 1;
    let name = b.name;
    if (name.length > MAX_LENGTH || (collides && b.changed))
      name = withHash(name, shortHash(b.tool.source, b.tool.tool));
    // Two raw names that are truly identical (the same tool twice) cannot both be kept.
    if (byName.has(name)) name = withHash(name, shortHash(b.tool.source, `${b.tool.tool}\0dup`));
    byName.set(name, b.tool);
  }
  return byName;
}
