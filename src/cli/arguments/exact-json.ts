/**
 * JSON read without losing digits. `JSON.parse` turns `12345678901234567890` into
 * `12345678901234567000` without a word; a tool argument must never change like that, so every
 * number is checked against the text it came from.
 */

import { describeJsonError } from './json-error.js';

/** A JSON number token (RFC 8259 grammar). */
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export type ExactNumber =
  | { readonly ok: true; readonly value: number }
  | { readonly ok: false; readonly reason: 'not-a-number' | 'inexact'; readonly nearest?: number };

/**
 * `text` as a JS number when it is a JSON number that a double holds exactly, i.e. the number
 * sent on the wire denotes the same decimal value the person wrote (`0.1`, `1e3`, `1.50`).
 * A 20-digit integer or `1e400` is `inexact`.
 */
export function exactNumber(text: string): ExactNumber {
  if (!NUMBER.test(text)) return { ok: false, reason: 'not-a-number' };
  const value = Number(text);
  if (!Number.isFinite(value)) return { ok: false, reason: 'inexact' };
  return canonicalDecimal(text) === canonicalDecimal(String(value))
    ? { ok: true, value }
    : { ok: false, reason: 'inexact', nearest: value };
}

/** `-1.2300e2` → `-123e0`-like canonical form (sign, significant digits, exponent). */
function canonicalDecimal(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return text;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  let digits = `${whole}${fraction}`;
  let exp = Number(exponent) - fraction.length;
  const leading = digits.match(/^0*/)?.[0].length ?? 0;
  digits = digits.slice(leading);
  if (digits === '') return '0';
  const trailing = digits.match(/0*$/)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - trailing);
  exp += trailing;
  return `${sign}${digits}e${exp}`;
}

export type ExactJson =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string; readonly inexact?: string };

/**
 * `JSON.parse`, refusing a number that would not survive it (reported in `inexact`, the
 * number as written). A syntax error keeps the engine's message, which names the position.
 */
export function parseExactJson(text: string): ExactJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Node 20's message names no position and quotes the whole input.
    return { ok: false, message: describeJsonError(text) };
  }
  for (const token of numberTokens(text)) {
    const exact = exactNumber(token);
    if (!exact.ok) {
      return {
        ok: false,
        inexact: token,
        message: `the number ${token} cannot be sent exactly (it would become ${String(exact.nearest ?? Number(token))})`,
      };
    }
  }
  return { ok: true, value };
}

/** Number tokens of a text already known to be valid JSON (strings skipped). */
function* numberTokens(text: string): Generator<string> {
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      const match = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
      const token = match?.[0] ?? c;
      yield token;
      i += token.length;
    } else {
      i++;
    }
  }
}
