/**
 * Edit distance (insertions, deletions, substitutions) between two strings.
 * Small inputs only: config keys, server and tool names.
 */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

// `envPassthrough`, `env-passthrough` and `ENV_PASSTHROUGH` are the same word to a person.
function fold(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

/**
 * The candidate a person most likely meant by `input`, or `undefined` when
 * nothing is close: a case/underscore/dash variant first, otherwise the
 * nearest name within edit distance 2 (and closer than the input is long, so
 * `ab` never "means" `cd`).
 *
 * @example suggest('comand', ['command', 'args']) // 'command'
 */
export function suggest(input: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  const folded = fold(input);
  const variant = list.find((c) => c !== input && fold(c) === folded);
  if (variant) return variant;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of list) {
    if (candidate === input) continue;
    const distance = Math.min(levenshtein(input, candidate), levenshtein(folded, fold(candidate)));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= 2 && bestDistance < input.length ? best : undefined;
}
