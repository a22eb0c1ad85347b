/**
 * The `~pattern` strings of `expect` blocks. Compiled exactly as src/apply/match-expected.ts does
 * (`new RegExp(rest)`, no flags), so validate refuses what apply would fail on.
 */
export function isExpectedPattern(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('~');
}

export function compileExpectedPattern(value: string): RegExp {
  return new RegExp(value.slice(1));
}
