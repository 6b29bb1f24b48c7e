import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import { forTerminal, mapHidden } from '../text/index.js';
import { toolFingerprint } from './tool-fingerprint.js';

/** Characters of a description shown on its tool's line before it is folded. */
export const FOLDED_DESCRIPTION_CHARS = 120;

/** The consent question's view of one server's tools. */
export interface ConnectToolsView {
  readonly text: string;
  /** True when some description was folded, so the person may ask to see them whole. */
  readonly folded: boolean;
}

/**
 * One fingerprint for every tool definition a connect approval covers (the
 * per-tool fingerprints the permission guard records, in name order), so the
 * person can tell one server's offer from another's at a glance.
 */
export function connectFingerprint(tools: readonly Tool[]): string {
  const lines = tools.map((tool) => `${tool.name}\0${toolFingerprint(tool)}`).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16);
}

/**
 * Each tool with its description, as the person approving the server must see
 * them: sanitized for the terminal (controls removed, invisible characters
 * shown as `<U+XXXX>`), one line each unless `full`, with a warning on any
 * description that holds invisible characters, folded or not, since that is
 * where a server hides instructions to the model.
 */
export function describeConnectTools(tools: readonly Tool[], full = false): ConnectToolsView {
  let folded = false;
  const lines = [
    `  Tools (${tools.length}), approved as these definitions (fingerprint ${connectFingerprint(tools)}):`,
  ];
  if (tools.length === 0) lines.push('    (none)');
  for (const tool of tools) {
    const raw = tool.description ?? '';
    const hidden = countHidden(raw);
    const warning = hidden ? `  [${hidden} invisible character${hidden === 1 ? '' : 's'}]` : '';
    const shown = forTerminal(raw).trim();
    lines.push(`    ${forTerminal(tool.name)}${warning}`);
    if (!shown) continue;
    if (full) {
      for (const line of shown.split('\n')) lines.push(`        ${line}`);
      continue;
    }
    const oneLine = shown.replace(/\s*\n\s*/g, ' ⏎ ');
    const cut = foldAt(oneLine, FOLDED_DESCRIPTION_CHARS);
    if (cut < oneLine.length) folded = true;
    const more = cut < oneLine.length ? ` … (+${oneLine.length - cut} characters)` : '';
    lines.push(`        ${oneLine.slice(0, cut)}${more}`);
  }
  return { text: lines.join('\n'), folded };
}

function countHidden(text: string): number {
  let count = 0;
  mapHidden(text, (ch) => {
    count++;
    return ch;
  });
  return count;
}

/** Where to fold `text` at about `max`: never inside a revealed `<U+XXXX>`, so each stays readable. */
function foldAt(text: string, max: number): number {
  if (text.length <= max) return text.length;
  const open = text.lastIndexOf('<U+', max);
  if (open >= 0 && open > max - 10) {
    const close = text.indexOf('>', open);
    if (close >= max) return close + 1;
  }
  return max;
}
