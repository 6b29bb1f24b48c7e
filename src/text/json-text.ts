import { type SafeText, vouched } from './safe-text.js';
import { mapHidden } from './unicode.js';

/**
 * One JSON document and a newline, fit for a terminal that shows it. JSON.stringify escapes C0
 * controls but leaves DEL, the C1 range (U+0080–U+009F, where 8-bit CSI lives) and invisible
 * or reordering characters (bidi controls, zero-width characters, tags, other format
 * characters) raw; they are escaped too, so server text cannot steer or disguise itself on a
 * terminal that shows the JSON (`--json`, a log being tailed). Parsed, the text is exact.
 */
export function jsonText(value: unknown, indent = 2): SafeText {
  return vouched(`${escapeControls(JSON.stringify(value, null, indent))}\n`);
}

// Printable ASCII and the indent's line breaks: nothing to escape (the common case, checked
// by a plain character class, cheaper than the Unicode-aware scan it spares).
const PLAIN = /^[\n\x20-\x7e]*$/;

function escapeControls(json: string): string {
  if (PLAIN.test(json)) return json;
  // Outside strings JSON has only ASCII, so every match is inside a string, where \uXXXX means the same.
  return mapHidden(json, (ch) =>
    Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join(
      '',
    ),
  );
}
