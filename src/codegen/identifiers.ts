/**
 * Identifiers for generated code, whatever a server calls its tools. The rule, documented in
 * docs/generate.md: the name is split into words at every character that is not an ASCII
 * letter or digit (`get-item`, `files.read`, `get_item` → `get item`, `files read`), joined in
 * camelCase (`getItem`, `filesRead`); a name with no such word becomes `tool`; a leading digit
 * gets a `_` before it; a reserved word gets a `_` after it (`delete` → `delete_`). Names that
 * then collide are numbered in the order of the servers' own names (code-unit order): the
 * first keeps it, the next is `getItem2`, and so on, so one listing always gives one mapping.
 */

/** Words that cannot name a binding in a strict-mode module, or that read as something else. */
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false ' +
    'finally for function if import in instanceof new null return super switch this throw true try ' +
    'typeof var void while with yield let static implements interface package private protected ' +
    'public await arguments eval undefined NaN Infinity constructor prototype'
  ).split(' '),
);

const words = (name: string): string[] => name.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');

const capitalised = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** `name` in camelCase, valid as an identifier, before collisions are numbered. */
export function identifierFor(name: string): string {
  const parts = words(name);
  if (parts.length === 0) return 'tool';
  const [first = '', ...rest] = parts;
  let id = first.charAt(0).toLowerCase() + first.slice(1) + rest.map(capitalised).join('');
  if (/^[0-9]/.test(id)) id = `_${id}`;
  return RESERVED.has(id) ? `${id}_` : id;
}

/** `name` in PascalCase, for a type's name (`get-item` → `GetItem`). */
export function typeNameFor(identifier: string): string {
  const bare = identifier.replace(/^_+|_+$/g, '');
  return /^[0-9]/.test(bare) ? `T${bare}` : capitalised(bare);
}

/**
 * One identifier per name, none repeated: `identifierFor` each, numbered on collision in the
 * code-unit order of the names (see the module's rule). `taken` are names the module already uses.
 */
export function assignIdentifiers(
  names: readonly string[],
  taken: readonly string[] = [],
): ReadonlyMap<string, string> {
  return assignByKey(
    names.map((name) => ({ key: name, name })),
    taken,
  );
}

/**
 * One identifier per key (a resource's URI, a prompt's name), made from each entry's `name` by
 * the same rule, numbered on collision in the code-unit order of the names, then of the keys: two
 * resources may share a name, never a URI.
 */
export function assignByKey(
  entries: readonly { readonly key: string; readonly name: string }[],
  taken: readonly string[] = [],
): ReadonlyMap<string, string> {
  const used = new Set(taken);
  const assigned = new Map<string, string>();
  const order = (a: { key: string; name: string }, b: { key: string; name: string }) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  for (const { key, name } of [...entries].sort(order)) {
    if (assigned.has(key)) continue;
    const base = identifierFor(name);
    let id = base;
    for (let n = 2; used.has(id) || used.has(typeNameFor(id)); n++) id = `${base}${n}`;
    used.add(id);
    used.add(typeNameFor(id));
    assigned.set(key, id);
  }
  return assigned;
}

/** Names no file of a tree may take on Windows, whatever its extension, in any case. */
const DEVICE_NAMES = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/** Longest file name stem: a tool's name may be long, a file name may not (255 bytes on most systems). */
const MAX_STEM = 100;

/**
 * The file of each identifier in a `--layout tree` folder, as `<stem>.ts`: the identifier itself,
 * unless another file already has that name on a case-insensitive file system (macOS's,
 * Windows's) — `index.ts`, a name Windows keeps for devices (`con`, `aux`, `nul`…), or an earlier
 * identifier equal but for case (`getURL` and `getUrl`). Then, in the identifiers' code-unit
 * order, the later one gets `-2`, `-3`… (`getUrl-2.ts`), which no identifier can be.
 */
export function assignFileNames(identifiers: readonly string[]): ReadonlyMap<string, string> {
  const used = new Set(['index']);
  const files = new Map<string, string>();
  for (const id of [...identifiers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const stem = id.slice(0, MAX_STEM);
    let name = stem;
    for (let n = 2; used.has(name.toLowerCase()) || DEVICE_NAMES.test(name); n++) name = `${stem}-${n}`;
    used.add(name.toLowerCase());
    files.set(id, `${name}.ts`);
  }
  return files;
}

/** A property key as written in a type or an object literal: bare when it can be, else quoted. */
export function propertyKey(key: string, quote: (value: string) => string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : quote(key);
}
