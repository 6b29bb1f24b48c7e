/**
 * README.md holds no figure that changes with each commit or each run — test counts, suite
 * durations, benchmark times, ratios and percentages — so it never goes stale: those live in
 * docs/performance.md and bench/RESULTS.md, which the README links to. Commands in code blocks
 * are left alone (their comments are read), and so are constants of the product (a 10 MB
 * rotation, 30 idle minutes): they are not figures of a run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';
import { prose } from '../helpers/markdown.js';

/** What marks a measured or counted figure, each with what it catches. */
const FIGURES: readonly RegExp[] = [
  /\b\d[\d,]*\s+tests?\b/g, // "1,693 tests"
  /\b\d[\d,]*\s+(?:test\s+)?files\b/g, // "in 221 files"
  /\b\d[\d,]*(?:\.\d+)?\s?(?:ms|µs|μs)\b/g, // "168 µs", "41.5 ms"
  /\b\d+(?:\.\d+)?\s?×/g, // "1.6×"
  /\b\d+(?:\.\d+)?\s?%/g, // "up to 9%"
  /\babout\s+\d[\d,.]*\s+(?:seconds|minutes|hours|[KMG]B)\b/g, // "about 9 minutes", "about 6 MB"
  /\|\s*\d[\d,.]*(?:\s*[–/-]\s*\d[\d,.]*)*\s*(?=\|)/g, // a table cell holding only a number: "| 243–246 |"
];

/**
 * The text a reader takes as prose, by line number: every line outside fenced code blocks, and
 * the comments (`# …`, `// …`) of the lines inside them, where a figure reads as a claim too.
 */
function claims(text: string): Map<number, string> {
  const outside = new Set(prose(text));
  const found = new Map<number, string>();
  text.split('\n').forEach((line, index) => {
    if (outside.has(line)) found.set(index + 1, line);
    else {
      const comment = /(?:^|\s)(?:#|\/\/)\s(.*)$/.exec(line)?.[1];
      if (comment !== undefined) found.set(index + 1, comment);
    }
  });
  return found;
}

/** Each figure in `text`, with its line number. */
function figuresIn(text: string): string[] {
  const found: string[] = [];
  for (const [number, line] of claims(text)) {
    for (const pattern of FIGURES) {
      for (const match of line.matchAll(pattern))
        found.push(`${number}: ${match[0].replace(/^\|\s*/, '').trim()}`);
    }
  }
  return found;
}

describe('the README', () => {
  it('finds counts, durations, ratios, percentages and tables of them, not constants or code', () => {
    const planted = [
      '# mcpx',
      'npm test runs 1,693 tests in 221 files, about 9 minutes on 2 cores.',
      'A warm call takes about 1.6× `node -e 0`; a relayed one 243 µs, or 41.5 ms cold.',
      'It trails by up to 9%, and a thin serve takes about 6 MB.',
      'The audit log rotates at 10 MB; answers are kept 30 idle minutes; Node 20, 2025-11-25, exit 130.',
      '| relay | µs per call |',
      '| ----- | ----------- |',
      '| raw   | 168         |',
      '| mcpx  | 243–246     |',
      '| [docs/cli.md](docs/cli.md) | every command and exit code |',
      '```sh',
      'npm test                  # 1,693 tests',
      'mcpx call demo.add a=2 b=3 --timeout 30',
      "curl -H 'X: 5%' http://127.0.0.1:8808/mcp",
      '```',
    ].join('\n');
    expect(figuresIn(planted)).toEqual([
      '2: 1,693 tests',
      '2: 221 files',
      '2: about 9 minutes',
      '3: 243 µs',
      '3: 41.5 ms',
      '3: 1.6×',
      '4: 9%',
      '4: about 6 MB',
      '8: 168',
      '9: 243–246',
      '12: 1,693 tests',
    ]);
  });

  it('holds no such figure (link to docs/performance.md instead)', () => {
    expect(figuresIn(readFileSync(join(repoRoot, 'README.md'), 'utf8'))).toEqual([]);
  });
});
