import { jsonText, type SafeText } from '../../text/index.js';

/**
 * Machine output: one JSON document and a newline, with controls and invisible characters
 * escaped (see `text/json-text.ts`): the same JSON value, parsed, the text exact.
 */
export function toJson(value: unknown, indent = 2): SafeText {
  return jsonText(value, indent);
}
