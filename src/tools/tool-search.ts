import type { RoutedTool } from './router.js';

/**
 * Words of a name or text, lower-cased: snake_case and kebab-case split, and a
 * camelCase word both whole and in parts (`GitHub` → github, git, hub).
 */
export function tokenize(text: string): string[] {
  const words: string[] = [];
  for (const raw of text.split(/[^a-zA-Z0-9]+/)) {
    if (raw.length < 2) continue;
    const parts = raw.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(' ');
    words.push(raw.toLowerCase());
    if (parts.length > 1) words.push(...parts.filter((p) => p.length > 1).map((p) => p.toLowerCase()));
  }
  return words;
}

export interface SearchHit {
  readonly tool: RoutedTool;
  readonly score: number;
}

/**
 * BM25 over each tool's name and description, a name match counting three
 * times a description match: `search_tools` for agents with more tools than
 * fit in a prompt.
 */
export function searchTools(tools: readonly RoutedTool[], query: string, limit = 8): SearchHit[] {
  const terms = [...new Set(tokenize(query))];
  if (terms.length === 0) return [];
  const docs = tools.map((tool) => {
    const words = [
      ...tokenize(tool.tool.name),
      ...tokenize(tool.tool.name),
      ...tokenize(tool.tool.name),
      ...tokenize(tool.description),
    ];
    const counts = new Map<string, number>();
    for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
    return { tool, counts, length: words.length };
  });
  const averageLength = docs.reduce((sum, d) => sum + d.length, 0) / Math.max(docs.length, 1);
  const k1 = 1.2;
  const b = 0.75;
  const idf = new Map(
    terms.map((t) => {
      const n = docs.filter((d) => d.counts.has(t)).length;
      return [t, Math.log(1 + (docs.length - n + 0.5) / (n + 0.5))];
    }),
  );
  return docs
    .map((d) => {
      let score = 0;
      for (const t of terms) {
        const f = d.counts.get(t) ?? 0;
        if (f === 0) continue;
        score += (idf.get(t) ?? 0) * ((f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.length) / averageLength)));
      }
      return { tool: d.tool, score };
    })
    .filter((h) => h.score > 0)
    .sort((x, y) => y.score - x.score || x.tool.name.localeCompare(y.tool.name))
    .slice(0, limit);
}
