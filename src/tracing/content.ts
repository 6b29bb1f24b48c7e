/**
 * `--trace-content`: tool arguments and results recorded on spans, secrets masked. Off by
 * default: a trace leaves the machine, and what a tool was given is the user's business.
 */
import type { Span } from '@opentelemetry/api';
import { maskSecrets } from '../text/index.js';

let recording = false;

/** Switches content recording on or off for this process (the CLI's `--trace-content`). */
export function recordTraceContent(on: boolean): void {
  recording = on;
}

/** Whether spans carry arguments and results. */
export function tracesContent(): boolean {
  return recording;
}

// An attribute is a string held in memory until export: a huge result is cut, not copied whole.
const MAX_CONTENT_CHARS = 8_192;

/** Sets `attribute` to `value` as masked JSON, when content is recorded and the span records. */
export function recordContent(span: Span, attribute: string, value: unknown): void {
  if (!recording || value === undefined || !span.isRecording()) return;
  let text = JSON.stringify(maskSecrets(value, { marker: '***' })) ?? '';
  if (text.length > MAX_CONTENT_CHARS) text = `${text.slice(0, MAX_CONTENT_CHARS)}…`;
  span.setAttribute(attribute, text);
}
