import {
  applyEdits,
  type Edit,
  type FormattingOptions,
  findNodeAtLocation,
  type JSONPath,
  modify,
  type Node,
  parseTree,
} from 'jsonc-parser';

/**
 * Line-aware insertion and removal of one property in JSONC text. jsonc-parser's
 * `modify` inserts right after the previous value, so a `// comment` ending
 * that line moves to the new entry, and its formatter rewrites the whole
 * line (a one-line entry becomes five); a removal takes the neighbour's
 * comment with it. Here an entry written on lines of its own is added or
 * removed as whole lines, so every other byte, comments included, stays put;
 * anything else falls back to `modify`.
 */

const PARSE = { allowTrailingComma: true, disallowComments: false };

/** Add `key: value` at the end of the object at `path` (which must exist). */
export function insertProperty(
  text: string,
  path: JSONPath,
  key: string,
  value: unknown,
  formatting: FormattingOptions,
): string {
  const fallback = () =>
    applyEdits(text, modify(text, [...path, key], value, { formattingOptions: formatting }));
  const object = nodeAt(text, path);
  const last = object?.type === 'object' ? object.children?.at(-1) : undefined;
  if (!object || !last) return fallback();
  const valueEnd = last.offset + last.length;
  const entry = `${JSON.stringify(key)}: `;
  if (!text.slice(object.offset, object.offset + object.length).includes('\n')) {
    // A one-line object stays on one line.
    return applyEdits(text, [{ offset: valueEnd, length: 0, content: `, ${entry}${JSON.stringify(value)}` }]);
  }
  const tail = lineTail(text, valueEnd);
  const indent = leadingIndent(text, last.offset);
  if (!tail || indent === undefined) return fallback();
  const unit = formatting.insertSpaces === false ? '\t' : ' '.repeat(formatting.tabSize ?? 2);
  const eol = formatting.eol ?? '\n';
  const pretty = JSON.stringify(value, null, unit).replace(/\n/g, `${eol}${indent}`);
  const line = `${eol}${indent}${entry}${pretty}${tail.comma === undefined ? '' : ','}`;
  if (tail.comma !== undefined) return applyEdits(text, [{ offset: tail.lineEnd, length: 0, content: line }]);
  // The value before gets its comma; when nothing follows it on its line, both go in one edit.
  const edits: Edit[] =
    tail.lineEnd === valueEnd
      ? [{ offset: valueEnd, length: 0, content: `,${line}` }]
      : [
          { offset: valueEnd, length: 0, content: ',' },
          { offset: tail.lineEnd, length: 0, content: line },
        ];
  return applyEdits(text, edits);
}

/** Remove the property (or array element) at `path`, with its line when it has one of its own. */
export function removeProperty(text: string, path: JSONPath): string {
  const fallback = () => applyEdits(text, modify(text, path, undefined, {}));
  const node = nodeAt(text, path);
  const item = node?.parent?.type === 'property' ? node.parent : node;
  const container = item?.parent;
  if (!item || !container?.children) return fallback();
  const lineStart = text.lastIndexOf('\n', item.offset - 1) + 1;
  const tail = lineTail(text, item.offset + item.length);
  if (!tail || leadingIndent(text, item.offset) === undefined) return fallback();
  const newline = text.startsWith('\r\n', tail.lineEnd) ? 2 : text.startsWith('\n', tail.lineEnd) ? 1 : 0;
  const edits: Edit[] = [{ offset: lineStart, length: tail.lineEnd + newline - lineStart, content: '' }];
  const index = container.children.indexOf(item);
  const previous = container.children[index - 1];
  if (index === container.children.length - 1 && tail.comma === undefined && previous) {
    // The last one goes: the comma after the one before it would now be trailing.
    const comma = commaAfter(text, previous.offset + previous.length);
    if (comma !== undefined) edits.push({ offset: comma, length: 1, content: '' });
  }
  return applyEdits(text, edits);
}

function nodeAt(text: string, path: JSONPath): Node | undefined {
  const root = parseTree(text, [], PARSE);
  if (!root) return undefined;
  return path.length === 0 ? root : findNodeAtLocation(root, path);
}

/** What follows a value up to the end of its line: a comma and a comment at most; otherwise undefined. */
function lineTail(text: string, from: number): { lineEnd: number; comma?: number } | undefined {
  let at = skipBlanks(text, from);
  let comma: number | undefined;
  if (text[at] === ',') {
    comma = at;
    at = skipBlanks(text, at + 1);
  }
  if (text.startsWith('//', at)) {
    const end = text.indexOf('\n', at);
    at = end === -1 ? text.length : text[end - 1] === '\r' ? end - 1 : end;
  } else if (text.startsWith('/*', at)) {
    const end = text.indexOf('*/', at + 2);
    if (end === -1 || text.slice(at, end).includes('\n')) return undefined;
    at = skipBlanks(text, end + 2);
  }
  if (at < text.length && text[at] !== '\n' && !text.startsWith('\r\n', at)) return undefined;
  return { lineEnd: at, ...(comma === undefined ? {} : { comma }) };
}

/** The blanks before `offset` on its line, when nothing else precedes it there. */
function leadingIndent(text: string, offset: number): string | undefined {
  const before = text.slice(text.lastIndexOf('\n', offset - 1) + 1, offset);
  return /^[ \t]*$/.test(before) ? before : undefined;
}

/** The offset of the comma separating the value ending at `from` from the next, across blanks and comments. */
function commaAfter(text: string, from: number): number | undefined {
  let at = from;
  while (at < text.length) {
    if (/\s/.test(text[at] ?? '')) at += 1;
    else if (text.startsWith('//', at))
      at = text.indexOf('\n', at) === -1 ? text.length : text.indexOf('\n', at);
    else if (text.startsWith('/*', at))
      at = text.indexOf('*/', at + 2) === -1 ? text.length : text.indexOf('*/', at + 2) + 2;
    else return text[at] === ',' ? at : undefined;
  }
  return undefined;
}

function skipBlanks(text: string, from: number): number {
  let at = from;
  while (text[at] === ' ' || text[at] === '\t') at += 1;
  return at;
}
