import vm from 'node:vm';

/**
 * The `~pattern` strings of `expect` blocks. One compile (`new RegExp(rest, 'u')`) for validate and for the checks
 * (src/apply/match-expected.ts), so validate refuses what apply would fail on. The `u` flag reads the value as
 * characters: without it `.` matches half of an emoji, `[😀-😎]` is refused, and `\p{Lu}` silently means the text
 * `p{Lu}`. It also refuses escapes that mean nothing (`\-` outside a class): refused at validate, never read as
 * another pattern. Not `v`: it would refuse an unescaped `-` or `(` in a class (`[\w.-]`), which users write.
 */
export function isExpectedPattern(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('~');
}

export function compileExpectedPattern(value: string): RegExp {
  return new RegExp(value.slice(1), 'u');
}

/** How long one pattern may run against one value before the check is given up as undecided. */
export const EXPECTED_PATTERN_BUDGET_MS = 1000;

let sandbox: { context: vm.Context; script: vm.Script } | undefined;

/**
 * Whether the value matches, or `'timeout'` past the budget. A regular expression runs synchronously and holds the
 * event loop: a pattern with nested quantifiers (`(.*)*`) can backtrack for hours on a value it fails on, where
 * neither a request timeout nor Ctrl-C reaches it. Run in a context of its own, it is stopped by vm's watchdog.
 */
export function testExpectedPattern(
  pattern: RegExp,
  value: string,
  budgetMs = EXPECTED_PATTERN_BUDGET_MS,
): boolean | 'timeout' {
  sandbox ??= { context: vm.createContext({}), script: new vm.Script('pattern.test(value)') };
  Object.assign(sandbox.context, { pattern, value });
  try {
    return sandbox.script.runInContext(sandbox.context, { timeout: budgetMs }) === true;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
    throw error;
  } finally {
    Object.assign(sandbox.context, { pattern: undefined, value: undefined });
  }
}
