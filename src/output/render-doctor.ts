import type { Colors } from './colors.js';
import { printable } from './escape-text.js';
import { renderJson } from './render-json.js';

/** One thing `doctor` looked at: `fail` means scrapeform cannot work with what it saw. */
export interface DoctorCheck {
  /** Stable name, such as `parsers.list` or `clock`. */
  name: string;
  status: 'ok' | 'warn' | 'fail' | 'skipped';
  message: string;
}

/**
 * One reading of issue 13 (named as the emulator quirk that plays it): `seen` is true when the account showed it,
 * false when it showed the seed's reading, null when a read-only check cannot tell (or the service was skipped).
 */
export interface DoctorReading {
  name: string;
  seen: boolean | null;
  message: string;
}

/** What `doctor` reports (`doctor --json` prints this object). */
export interface DoctorReport {
  /** True when scrapeform can work with what was seen (exit 0). */
  ok: boolean;
  endpoints: { parsers: string; projects: string };
  checks: DoctorCheck[];
  readings: DoctorReading[];
  proxy: {
    httpProxy: string | null;
    httpsProxy: string | null;
    noProxy: string | null;
    /** Per service: `direct`, or the proxy its calls go through (credentials hidden). */
    route: { parsers: string; projects: string };
  };
  /** The services' clock minus this machine's, from the `Date` header; null when no answer carried one. */
  clockSkewMs: number | null;
}

const MARK: Record<DoctorCheck['status'], string> = { ok: '✓', warn: '!', fail: '✗', skipped: '-' };

/**
 * The doctor report for people: one line per check, then the readings and the proxy route. Messages quote what the
 * services answered (ids, statuses, error bodies): printable (escape-text.ts).
 */
export function renderDoctorHuman(report: DoctorReport, colors: Colors): string {
  const paint = (status: DoctorCheck['status'], text: string): string =>
    status === 'ok'
      ? colors.green(text)
      : status === 'fail'
        ? colors.red(text)
        : status === 'warn'
          ? colors.yellow(text)
          : colors.dim(text);
  const width = Math.max(...report.checks.map((c) => c.name.length));
  const lines = [
    colors.bold('Checks (read-only: no credits spent)'),
    ...report.checks.map(
      (c) => `  ${paint(c.status, MARK[c.status])} ${c.name.padEnd(width)}  ${printable(c.message)}`,
    ),
    '',
    colors.bold('Readings of the real services (docs/real-services.md)'),
    ...report.readings.map(
      (r) =>
        `  ${r.seen === true ? colors.yellow('seen    ') : r.seen === false ? colors.dim('not seen') : colors.dim('unknown ')} ${r.name}: ${printable(r.message)}`,
    ),
    '',
    `Proxy: parsers ${report.proxy.route.parsers}, projects ${report.proxy.route.projects}`,
    '',
    report.ok
      ? colors.green('scrapeform can work with this account.')
      : colors.red('scrapeform cannot work with what it saw: fix the checks marked ✗.'),
  ];
  return lines.join('\n');
}

export function renderDoctorJson(report: DoctorReport): string {
  return renderJson(report);
}
