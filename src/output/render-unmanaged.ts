import type { LiveParserSummary, LiveProject } from '../api/live.js';
import { printable, quoted } from './escape-text.js';

/**
 * `plan --show-unmanaged`: a line per live object no state manages. Names, ids and statuses are the services' (anyone
 * with the key can name a parser `\e[2J…\r\nparser.fake  ok`), so each is printable as in a plan.
 */
export function renderUnmanaged(list: { parsers: LiveParserSummary[]; projects: LiveProject[] }): string {
  const lines = [
    ...list.parsers.map(
      (p) =>
        `parser ${quoted(p.name)} (${printable(p.id)}, version ${p.version}, ${printable(String(p.status))})`,
    ),
    ...list.projects.map((p) => `project ${quoted(p.name ?? '')} (${p.id})`),
  ];
  return lines.length === 0
    ? 'No unmanaged objects.'
    : `Unmanaged (never touched):\n${lines.map((l) => `  ${l}`).join('\n')}`;
}
