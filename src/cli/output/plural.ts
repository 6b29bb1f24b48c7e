/**
 * A count with its noun, singular for exactly one: `plural(1, 'tool')` → "1 tool",
 * `plural(3, 'tool')` → "3 tools", `plural(2, 'entry', 'entries')` → "2 entries".
 */
export function plural(count: number, noun: string, nounForMany = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nounForMany}`;
}
