import type { Colors } from '../output/colors.js';
import { printable } from '../output/escape-text.js';
import { leftLines } from '../workspace/heal-selection.js';
import type { WatchEvent } from '../workspace/watch-loop.js';

/**
 * The log lines of one watch event (stderr). Addresses, drift messages, warnings and errors carry live names and
 * service texts, so each is printable (escape-text.ts): a field renamed by hand cannot forge a log line.
 */
export function watchEventLines(event: WatchEvent, colors: Colors): string[] {
  const { yellow, red, green } = colors;
  switch (event.type) {
    case 'checked': {
      const r = event.report;
      return [
        r.status === 'no_drift'
          ? `watch: no drift (${r.summary.objects} managed)`
          : yellow(
              `watch: drift in ${r.summary.drifted} of ${r.summary.objects}: ${r.drift.map((d) => `${printable(d.address)} (${printable(d.message)})`).join('; ')}`,
            ),
        ...r.warnings.map((warning) => yellow(`warning: ${printable(warning)}`)),
      ];
    }
    case 'healed': {
      const results = event.outcome.result?.results ?? [];
      return [
        results.length === 0
          ? 'watch: heal: the plan had nothing to send'
          : green(
              `watch: healed ${results.map((r) => `${printable(r.address)}${r.ok ? '' : ` (failed: ${printable(r.error?.message ?? '')})`}`).join(', ')}; ${event.regenerations} regeneration(s)`,
            ),
      ];
    }
    case 'heal-left':
      return leftLines(event.changes, {
        destructive: 'watch: not healed, destructive (apply --allow-destroy makes them)',
        'starts-runs': 'watch: not healed, starts project runs paid per page (apply makes them)',
        adopts: 'watch: not healed, takes over a live object no state manages (apply --allow-adopt makes it)',
        'regeneration-budget':
          'watch: not healed, beyond the regeneration budget (--max-regenerations raises it)',
      }).map((line) => yellow(line));
    case 'heal-skipped':
      return [yellow(`watch: not healed: ${printable(event.reason)}`)];
    case 'failed':
      return [
        red(
          `watch: run failed: ${printable(event.error instanceof Error ? event.error.message : String(event.error))}`,
        ),
      ];
    case 'notified':
      return [`watch: notified (${event.status})`];
    case 'notify-failed':
      return [yellow(`watch: the notification failed: ${printable(event.error)}`)];
  }
}
