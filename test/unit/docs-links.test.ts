/**
 * The docs hold together: every relative link in README.md and docs/*.md reaches a file (and, for a
 * Markdown file, a heading `#anchor` as GitHub names it), and every source file the architecture
 * map and the design notes name exists. Reads files only: no network, no build.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The Markdown outside fenced code blocks, where links and headings mean something. */
function prose(text: string): string[] {
  let fence: string | undefined;
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      continue;
    }
    if (fence === undefined) lines.push(line);
  }
  return lines;
}

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

/**
 * Source paths a document names in inline code (`config/load.ts`, `gateway/core.ts#GatewayCore`,
 * `transport/stdio/`): each must exist (and hold the name after `#`) under src/, or under one of its folders (the notes name
 * `http/guard.ts` inside the gateway's room), or at the repository's root (`test/…`, `bench/…`).
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
      else if (member !== undefined && !readFileSync(place, 'utf8').includes(member))
        missing.add(`${path}#${member}`);
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
      'The config is loaded by `config/load.ts#loadConfig`, not by `config/no-such-loader.ts`',
      'nor by `config/load.ts#noSuchFunction`.',
    ].join('\n');
    expect(brokenLinks('docs/planted.md', planted)).toEqual([
      'no-such-file.md: no such file',
      'cli.md#no-such-heading: no heading #no-such-heading in docs/cli.md',
    ]);
    expect(missingSourcePaths(planted)).toEqual([
      'config/no-such-loader.ts',
      'config/load.ts#noSuchFunction',
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
});
