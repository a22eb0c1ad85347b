/** commander collector for repeatable flags: without one, the last occurrence silently wins (STYLE.md). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
