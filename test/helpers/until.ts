/**
 * Waits until `holds()` is true, checking at once and then every `everyMs`. It throws when `withinMs` passes without
 * it, naming the condition: a bounded loop that just falls through lets the test act anyway and fail somewhere else.
 * The bound is a Date.now() deadline, not a count of tries, and a generous one: a loaded CI machine is slow, not
 * wrong, and only a condition that never comes should fail.
 */
export async function until(
  what: string,
  holds: () => boolean | Promise<boolean>,
  options: { withinMs?: number; everyMs?: number } = {},
): Promise<void> {
  const { withinMs = 20_000, everyMs = 10 } = options;
  const deadline = Date.now() + withinMs;
  while (!(await holds())) {
    if (Date.now() >= deadline) throw new Error(`timed out after ${withinMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
