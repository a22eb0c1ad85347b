import { Option } from 'commander';
import type { Command } from 'commander';
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
