/**
 * Characters that change how text reads without being seen: bidirectional
 * overrides and isolates (U+202A–202E, U+2066–2069, U+200E/F, U+061C),
 * zero-width characters (U+200B–200D, U+2060, U+FEFF, U+180E), the line and paragraph
 * separators (U+2028/2029, invisible line breaks), Unicode tags
 * (U+E0000–E007F, invisible ASCII), variation selectors used to smuggle
 * bytes, other format (Cf) characters, and control (Cc) characters other than
 * tab, line feed and carriage return. A server can hide instructions to the
 * model in a tool description with them.
 */
const HIDDEN =
  /[\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|[\u{E0000}-\u{E007F}]|[\ufe00-\ufe0f]|[\u{E0100}-\u{E01EF}]|\p{Cf}|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/gu;

/** True when `text` holds any hidden or direction-changing character. */
export function hasHiddenCharacters(text: string): boolean {
  HIDDEN.lastIndex = 0;
  return HIDDEN.test(text);
}

/** Each hidden character replaced by what `replace` makes of it (one code point at a time). */
export function mapHidden(text: string, replace: (ch: string) => string): string {
  return text.replace(HIDDEN, replace);
}

/** Each hidden character made visible as `<U+XXXX>`, for a person reading server text. */
export function revealHidden(text: string): string {
  return text.replace(HIDDEN, (ch) => {
    const code = ch.codePointAt(0) ?? 0;
    return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}

/** The text without hidden characters, for what the model sees. */
export function stripHidden(text: string): string {
  return text.replace(HIDDEN, '');
}
