/**
 * The block YAML that Kubernetes manifests are written in, read without a YAML library (none is
 * a dependency): documents split by `---`, mappings, sequences (of scalars or of mappings),
 * `|` literal blocks, comments, and scalars — JSON-style flow (`["a", "b"]`, `{}`), quoted
 * strings, integers (a leading 0 is octal, as Kubernetes' YAML 1.1 reads `defaultMode: 0440`),
 * booleans and null. Anything else it does not understand is an error, never a guess.
 */
export function parseYamlDocuments(text: string): unknown[] {
  const documents: Line[][] = [[]];
  for (const [n, raw] of text.split('\n').entries()) {
    if (raw.trimEnd() === '---') {
      documents.push([]);
      continue;
    }
    (documents.at(-1) as Line[]).push({ n: n + 1, raw });
  }
  return documents.filter((lines) => lines.some(isContent)).map((lines) => parseDocument(lines));
}

interface Line {
  readonly n: number;
  readonly raw: string;
}

const isContent = (line: Line) => stripComment(line.raw).trim() !== '';
const indentOf = (text: string) => text.length - text.trimStart().length;

function parseDocument(lines: Line[]): unknown {
  const reader = { lines, at: 0 };
  skipBlank(reader);
  const first = reader.lines[reader.at] as Line;
  return parseBlock(reader, indentOf(first.raw));
}

interface Reader {
  lines: Line[];
  at: number;
}

function skipBlank(reader: Reader): void {
  while (reader.at < reader.lines.length && !isContent(reader.lines[reader.at] as Line)) reader.at++;
}

function parseBlock(reader: Reader, indent: number): unknown {
  const line = reader.lines[reader.at] as Line;
  return stripComment(line.raw).trimStart().startsWith('- ')
    ? parseSequence(reader, indent)
    : parseMapping(reader, indent);
}

function parseSequence(reader: Reader, indent: number): unknown[] {
  const items: unknown[] = [];
  for (skipBlank(reader); reader.at < reader.lines.length; skipBlank(reader)) {
    const line = reader.lines[reader.at] as Line;
    const text = stripComment(line.raw);
    if (indentOf(text) < indent) break;
    if (indentOf(text) > indent || !text.trimStart().startsWith('- '))
      throw new Error(`line ${line.n}: expected a sequence item at column ${indent}`);
    const rest = text.slice(indent + 2);
    if (/^[^"'[{][^:]*:( |$)/.test(rest)) {
      // `- key: value`: a mapping whose first line is this one, the "- " read as indentation.
      reader.lines[reader.at] = { n: line.n, raw: `${' '.repeat(indent + 2)}${rest}` };
      items.push(parseMapping(reader, indent + 2));
    } else {
      items.push(scalar(rest.trim(), line.n));
      reader.at++;
    }
  }
  return items;
}

function parseMapping(reader: Reader, indent: number): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  for (skipBlank(reader); reader.at < reader.lines.length; skipBlank(reader)) {
    const line = reader.lines[reader.at] as Line;
    const text = stripComment(line.raw);
    if (indentOf(text) < indent) break;
    const match = /^([A-Za-z0-9_.\-/]+):(?: (.*))?$/.exec(text.slice(indent));
    if (indentOf(text) > indent || !match)
      throw new Error(`line ${line.n}: expected "key: value" at column ${indent}`);
    const key = match[1] as string;
    const value = (match[2] ?? '').trim();
    reader.at++;
    if (key in map) throw new Error(`line ${line.n}: "${key}" given twice`);
    if (value === '|') map[key] = literalBlock(reader, indent);
    else if (value !== '') map[key] = scalar(value, line.n);
    else {
      skipBlank(reader);
      const next = reader.lines[reader.at];
      const nested = next ? indentOf(stripComment(next.raw)) : -1;
      if (nested <= indent) throw new Error(`line ${line.n}: "${key}" has no value`);
      map[key] = parseBlock(reader, nested);
    }
  }
  return map;
}

/** A `|` block: its lines (blank ones kept) less their common indentation, ending in one newline. */
function literalBlock(reader: Reader, indent: number): string {
  const taken: string[] = [];
  while (reader.at < reader.lines.length) {
    const raw = (reader.lines[reader.at] as Line).raw;
    if (raw.trim() !== '' && indentOf(raw) <= indent) break;
    taken.push(raw);
    reader.at++;
  }
  while (taken.length && (taken.at(-1) as string).trim() === '') taken.pop();
  const common = Math.min(...taken.filter((l) => l.trim() !== '').map(indentOf));
  return `${taken.map((l) => l.slice(common)).join('\n')}\n`;
}

function scalar(text: string, n: number): unknown {
  if (text.startsWith('"') || text.startsWith('[') || text.startsWith('{')) {
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`line ${n}: cannot read ${text} (only JSON-style flow and double quotes are read)`);
    }
  }
  if (text.startsWith("'")) {
    if (!text.endsWith("'") || text.length < 2) throw new Error(`line ${n}: unterminated ${text}`);
    return text.slice(1, -1).replaceAll("''", "'");
  }
  if (/^0[0-7]+$/.test(text)) return Number.parseInt(text, 8);
  if (/^-?(0|[1-9]\d*)$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === 'null' || text === '~') return null;
  if (/^[&*!|>%@`]/.test(text)) throw new Error(`line ${n}: YAML feature not read here: ${text}`);
  return text;
}

/** The line without its comment: a `#` at its start or after a space, outside quotes. */
function stripComment(raw: string): string {
  let quote: string | undefined;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(raw[i - 1] as string))) return raw.slice(0, i).trimEnd();
  }
  return raw.trimEnd();
}
