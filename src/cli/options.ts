import { Option } from 'commander';
import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import type { RenderFormat } from '../output/render-output.js';

/** commander collector for repeatable flags: without one, the last occurrence silently wins (STYLE.md). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * `--json` and `--markdown`, the two other formats of a command's stdout. Both at once is a usage error from
 * commander (`option '--json' cannot be used with option '--markdown'`, exit 1) while it parses, so before anything
 * is read, sent or locked: JSON was silently chosen.
 */
export function addFormatFlags(command: Command, help: { json: string; markdown: string }): Command {
  return command
    .addOption(new Option('--json', help.json).conflicts('markdown'))
    .option('--markdown', help.markdown);
}

/** The format those flags chose: human unless one of them was given. */
export function formatOf(flags: { json?: boolean; markdown?: boolean }): RenderFormat {
  return flags.json === true ? 'json' : flags.markdown === true ? 'markdown' : 'human';
}

/**
 * A flag's whole number, undefined when the flag is not given. One past Number.MAX_SAFE_INTEGER is not held exactly
 * (99999999999999999999 would become 100000000000000000000, and `diff-results --from` sent it so): refused, never
 * rounded.
 */
export function wholeNumber(value: string, flag: string): number;
export function wholeNumber(value: string | undefined, flag: string): number | undefined;
export function wholeNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new ScrapeformError('cli.usage', `${flag} takes a whole number, got "${value}"`);
  const number = Number(value);
  if (!Number.isSafeInteger(number))
    throw new ScrapeformError('cli.usage', `${flag} takes a whole number, got "${value}"`, {
      hint: `whole numbers up to ${Number.MAX_SAFE_INTEGER} are held exactly`,
    });
  return number;
}
