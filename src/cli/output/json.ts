/**
 * Machine output: one JSON document and a newline. JSON.stringify escapes C0
 * controls but leaves DEL and the C1 range (U+0080–U+009F, where 8-bit CSI
 * lives) raw; they are escaped too, so server text cannot steer a terminal
 * that shows the JSON. The result is the same JSON value.
 */
export function toJson(value: unknown, indent = 2): string {
  return `${escapeControls(JSON.stringify(value, null, indent))}\n`;
}

function escapeControls(json: string): string {
  return json.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
