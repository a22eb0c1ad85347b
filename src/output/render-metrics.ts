import { LEFT_REASONS } from '../model/vocabulary.js';
import type { LeftReason } from '../model/vocabulary.js';

/** What /metrics shows of a watch (the fields of workspace's WatchStatus that are numbers). */
export interface WatchMetrics {
  objects: number;
  drifted: number;
  runs: number;
  failures: number;
  heals: number;
  creditsSpent: number;
  /** `--notify` posts the webhook took, and those it did not (no answer, an error status, a redirect). */
  notificationsSent: number;
  notificationsFailed: number;
  regenerationsLeft?: number;
  lastRunAt?: number;
  lastRunOk?: boolean;
  /** The changes the last heal left out, each with why (undefined before a heal). */
  notHealed?: readonly { reason: LeftReason }[];
}

/** `watch`'s /metrics in the Prometheus text exposition format (version 0.0.4). */
export function renderMetrics(m: WatchMetrics): string {
  const metric = (
    name: string,
    type: 'gauge' | 'counter',
    help: string,
    value: number | undefined,
  ): string[] =>
    value === undefined ? [] : [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${value}`];
  return `${[
    ...metric('scrapeform_objects', 'gauge', 'Objects state manages, at the last drift check.', m.objects),
    ...metric(
      'scrapeform_drifted_objects',
      'gauge',
      'Objects changed outside scrapeform, at the last drift check.',
      m.drifted,
    ),
    ...metric(
      'scrapeform_last_run_timestamp_seconds',
      'gauge',
      'When the last drift check ended, in Unix seconds.',
      m.lastRunAt === undefined ? undefined : Math.round(m.lastRunAt / 1000),
    ),
    ...metric(
      'scrapeform_last_run_success',
      'gauge',
      '1 when the last drift check succeeded, 0 when it failed.',
      m.lastRunOk === undefined ? undefined : m.lastRunOk ? 1 : 0,
    ),
    ...metric('scrapeform_runs_total', 'counter', 'Drift checks run.', m.runs),
    ...metric('scrapeform_failures_total', 'counter', 'Drift checks or heals that failed.', m.failures),
    ...metric('scrapeform_heals_total', 'counter', 'Heals that made calls.', m.heals),
    ...metric(
      'scrapeform_credits_spent_total',
      'counter',
      'Credits the heals spent, estimated from regenerations at the public price.',
      m.creditsSpent,
    ),
    ...metric(
      'scrapeform_notifications_sent_total',
      'counter',
      'Notifications the --notify webhook took (a 2xx answer).',
      m.notificationsSent,
    ),
    ...metric(
      'scrapeform_notifications_failed_total',
      'counter',
      'Notifications not delivered (no answer, an error status, a redirect).',
      m.notificationsFailed,
    ),
    ...metric(
      'scrapeform_regenerations_left',
      'gauge',
      'Regenerations heals may still start (--max-regenerations).',
      m.regenerationsLeft,
    ),
    ...notHealedMetric(m.notHealed),
  ].join('\n')}\n`;
}

/** One series per reason, 0 included, once a heal ran: an alert on the budget needs its series before it is hit. */
function notHealedMetric(left: WatchMetrics['notHealed']): string[] {
  if (left === undefined) return [];
  const name = 'scrapeform_not_healed_changes';
  return [
    `# HELP ${name} Changes the last heal left out: destructive, starting paid project runs, or regenerations beyond the budget.`,
    `# TYPE ${name} gauge`,
    ...LEFT_REASONS.map(
      (reason) => `${name}{reason="${reason}"} ${left.filter((c) => c.reason === reason).length}`,
    ),
  ];
}
