/**
 * The docs hold together: every relative link in README.md and docs/*.md reaches a file (and, for a
 * Markdown file, a heading `#anchor` as GitHub names it), and every source file the architecture
 * map and the design notes name exists. Reads files only: no network, no build.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { prose } from '../helpers/markdown.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Heading anchors as GitHub makes them: lower case, punctuation dropped, spaces to `-`, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Relative link targets (`[text](target)`), outside code and inline code. */
function linksOf(text: string): string[] {
  const targets: string[] = [];
  for (const line of prose(text)) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) targets.push(target);
    }
  }
  return targets;
}

/** What is wrong with the relative links of `text`, the content of `file` (relative to the root). */
function brokenLinks(file: string, text = readFileSync(join(root, file), 'utf8')): string[] {
  const broken: string[] = [];
  for (const target of linksOf(text)) {
    const [path = '', anchor] = target.split('#', 2);
    const goal =
      path === '' ? join(root, file) : resolve(dirname(join(root, file)), decodeURIComponent(path));
    if (!existsSync(goal)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor === undefined || !goal.endsWith('.md') || statSync(goal).isDirectory()) continue;
    if (!anchorsOf(readFileSync(goal, 'utf8')).has(anchor)) {
      broken.push(`${target}: no heading #${anchor} in ${relative(root, goal)}`);
    }
  }
  return broken;
}

/** Every file under `dir`, recursively, as absolute paths. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

const sourceFiles = filesUnder(join(root, 'src')).filter((path) => path.endsWith('.ts'));
const testFiles = filesUnder(join(root, 'test')).filter((path) => path.endsWith('.ts'));
const sourceText = new Map(sourceFiles.map((path) => [path, readFileSync(path, 'utf8')]));

const literal = (name: string) => name.replace(/[$]/g, '\\$');

/** Whether `source` declares `name` at its top level (exported or not) or re-exports it by name. */
function declares(source: string, name: string): boolean {
  const n = literal(name);
  return (
    new RegExp(
      `^(?:export\\s+)?(?:declare\\s+)?(?:default\\s+)?(?:async\\s+)?(?:abstract\\s+)?(?:function\\*?|class|interface|type|const|let|var|enum)\\s+${n}\\b`,
      'm',
    ).test(source) || new RegExp(`^export\\s+(?:type\\s+)?\\{[^}]*\\b${n}\\b[^}]*\\}`, 'm').test(source)
  );
}

/** Whether `source` defines `name` as a member of a class, interface or object type (`#name` too). */
function definesMember(source: string, name: string): boolean {
  const n = literal(name.replace(/^#/, ''));
  return new RegExp(
    `^\\s+(?:(?:public|private|protected|static|readonly|async|get|set|override|abstract)\\s+)*#?${n}\\??\\s*[(:<=!]`,
    'm',
  ).test(source);
}

/** Whether `source` declares `name` or defines it as a member. */
const defines = (source: string, name: string) => declares(source, name) || definesMember(source, name);

/**
 * Source paths a document names in inline code (`config/load/load.ts`, `gateway/core.ts#GatewayCore`,
 * `transport/stdio/`): each must exist (and define the name after `#`) under src/, or under one
 * of its folders (the notes name `http/guard.ts` inside the gateway's room), or at the
 * repository's root (`test/…`, `bench/…`). A bare file name (`codes.ts`, `say.ts#say`) must be
 * a file somewhere under src/ or test/ (one of that name defining the name after `#`).
 */
function missingSourcePaths(text: string): string[] {
  const folders = readdirSync(join(root, 'src')).filter((name) =>
    statSync(join(root, 'src', name)).isDirectory(),
  );
  const missing = new Set<string>();
  for (const line of prose(text)) {
    for (const match of line.matchAll(
      /`([A-Za-z0-9_.-]+\/[A-Za-z0-9_./-]*?(?:\.ts|\/))(?:#([A-Za-z_$][\w$]*))?`/g,
    )) {
      const path = (match[1] ?? '').replace(/^src\//, '');
      const member = match[2];
      const places = [
        join(root, 'src', path),
        ...folders.map((f) => join(root, 'src', f, path)),
        join(root, path),
      ];
      const place = places.find((candidate) => existsSync(candidate));
      if (place === undefined) missing.add(path);
      else if (member !== undefined && !defines(readFileSync(place, 'utf8'), member))
        missing.add(`${path}#${member}`);
    }
    for (const match of line.matchAll(/`([A-Za-z0-9_-][A-Za-z0-9_.-]*\.ts)(?:#([A-Za-z_$][\w$]*))?`/g)) {
      const name = match[1] ?? '';
      const member = match[2];
      const places = [
        ...sourceFiles.filter((path) => path.endsWith(`/${name}`)),
        ...testFiles.filter((path) => path.endsWith(`/${name}`)),
      ];
      if (places.length === 0) missing.add(name);
      else if (member !== undefined && !places.some((place) => defines(readFileSync(place, 'utf8'), member)))
        missing.add(`${name}#${member}`);
    }
  }
  return [...missing];
}

/**
 * Names from outside src/ a document may use as code: the SDK's (`Client`, `serveStdio`,
 * `isLegacyRequest`, `auth()`), the platform's (`AbortSignal`, `Request`, `isatty()`), and fields of the MCP
 * specification and of the config format (`destructiveHint`, `mcpServers`).
 */
const FOREIGN_NAMES = new Set([
  'AbortSignal',
  'Client',
  'Request',
  'isatty',
  'auth',
  'isLegacyRequest',
  'serveStdio',
  'destructiveHint',
  'openWorldHint',
  'readOnlyHint',
  'mcpServers',
  'AppBridge',
]);

/** The interface an instance the docs name in lower case is of (`host.guard()`, `ask.approveServer`). */
const INSTANCES: Record<string, string> = { host: 'Host', ask: 'Ask', registry: 'ServerRegistry' };

/**
 * Symbols a document names in inline code, each checked against src/: a type or a function
 * (`SafeText`, `forTerminal`, `decide()`) is declared in some source file; a member
 * (`ServerRegistry.toolsSettled()`, `GatewayCore.#outOfProfile`, `host.guard()`) is defined in
 * the file that declares its owner; an error code (`SERVER_CRASHED`) is in `errors/codes.ts`.
 * Command lines, flags, config fields and protocol words (`mcpx call`, `keep_alive`, `list`)
 * are none of these and are not checked.
 */
function missingSymbols(text: string): string[] {
  const codes = readFileSync(join(root, 'src/errors/codes.ts'), 'utf8');
  const missing = new Set<string>();
  const declaredIn = (name: string) =>
    [...sourceText].filter(([, source]) => declares(source, name)).map(([, source]) => source);
  for (const line of prose(text)) {
    for (const match of line.matchAll(/`([^`\n]+)`/g)) {
      const code = match[1] ?? '';
      if (/\.(?:ts|js|mjs|cjs|json|md)$/.test(code)) continue; // a file: missingSourcePaths checks it
      if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(code)) {
        if (!new RegExp(`\\b${code}\\b`).test(codes)) missing.add(code);
        continue;
      }
      const symbol =
        /^(?<owner>[A-Z][A-Za-z0-9]*|[a-z]+)\.(?<member>#?[A-Za-z_$][\w$]*)(?:\(\))?$/.exec(code)?.groups ??
        /^(?<name>[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z]?|[a-z]+[A-Z][A-Za-z0-9]*)(?:\(\))?$/.exec(
          code,
        )?.groups ??
        /^(?<name>[a-z][A-Za-z0-9]*)\(\)$/.exec(code)?.groups;
      if (symbol === undefined) continue;
      if (symbol.name !== undefined) {
        if (FOREIGN_NAMES.has(symbol.name)) continue;
        const found = [...sourceText.values()].some((source) => defines(source, symbol.name ?? ''));
        if (!found) missing.add(code);
        continue;
      }
      const owner = INSTANCES[symbol.owner ?? ''] ?? symbol.owner ?? '';
      if (!/^[A-Z]/.test(owner)) continue;
      const homes = declaredIn(owner);
      if (homes.length === 0) missing.add(code);
      else if (!homes.some((source) => definesMember(source, symbol.member ?? ''))) missing.add(code);
    }
  }
  return [...missing];
}

describe('the docs', () => {
  it('name their headings as GitHub does', () => {
    const anchors = anchorsOf(
      '# The shell (`mcpx shell`)\n## Files and layers\n## Files and layers\n```\n# not a heading\n```',
    );
    expect([...anchors]).toEqual(['the-shell-mcpx-shell', 'files-and-layers', 'files-and-layers-1']);
  });

  it('report a missing file, a missing heading and a missing source file', () => {
    const planted = [
      'See [the CLI](cli.md#flags-for-every-command), [gone](no-such-file.md) and',
      '[a heading that is not there](cli.md#no-such-heading); `[not a link](gone.md)` is code.',
      'The config is loaded by `config/load/load.ts#loadConfig`, not by `config/no-such-loader.ts`',
      'nor by `config/load/load.ts#noSuchFunction`.',
    ].join('\n');
    expect(brokenLinks('docs/planted.md', planted)).toEqual([
      'no-such-file.md: no such file',
      'cli.md#no-such-heading: no heading #no-such-heading in docs/cli.md',
    ]);
    expect(missingSourcePaths(planted)).toEqual([
      'config/no-such-loader.ts',
      'config/load/load.ts#noSuchFunction',
    ]);
  });

  it.each(docs)('%s: every relative link reaches its file and heading', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it.each(['docs/ARCHITECTURE.md', 'docs/design-notes.md'])(
    '%s: every source file it names exists',
    (file) => {
      expect(missingSourcePaths(readFileSync(join(root, file), 'utf8'))).toEqual([]);
    },
  );

  it('report a symbol, a member or an error code the source does not define', () => {
    const planted = [
      'The host (`createHost`, `HostOptions.profile`, `host.guard()`) keeps `ServerRegistry.toolsSettled()`',
      'and `GatewayCore.#outOfProfile`; `decide()` is pure; `say.ts#say` and `sanitize.ts#forTerminal` make',
      'text; the SDK `Client` and `serveStdio`; `mcpx call`, `keep_alive` and `list` are not symbols.',
      'Not so: `createGhost`, `HostOptions.colour`, `host.unguard()`, `ServerRegistry.toolsUnsettled()`,',
      '`GatewayCore.#inProfile`, `undecide()`, `say.ts#shout`, `SERVER_EXPLODED`, `NoSuchThing`, `gone.ts`,',
      'and `load.ts#loadConfig` is a file that exists, but `codes.ts#ErrorCodes` names a symbol it lacks.',
    ].join('\n');
    expect(missingSymbols(planted).sort()).toEqual(
      [
        'GatewayCore.#inProfile',
        'HostOptions.colour',
        'NoSuchThing',
        'SERVER_EXPLODED',
        'ServerRegistry.toolsUnsettled()',
        'createGhost',
        'host.unguard()',
        'undecide()',
      ].sort(),
    );
    expect(missingSourcePaths(planted).sort()).toEqual(['codes.ts#ErrorCodes', 'gone.ts', 'say.ts#shout']);
  });

  it('docs/ARCHITECTURE.md: every symbol, member and error code it names is defined in src/', () => {
    expect(missingSymbols(readFileSync(join(root, 'docs/ARCHITECTURE.md'), 'utf8'))).toEqual([]);
  });
});
