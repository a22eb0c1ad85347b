import { Cron } from 'croner';
import type { EmulatorClock } from './clock.js';
import type { StoredProject } from './project-records.js';

/** API-NOTES: the literal for scrape-once is unknown; one source says `once`. The emulator accepts it. */
export const ONCE = 'once';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface SchedulerOptions {
  clock: EmulatorClock;
  /** False once the project was archived: its timers then do nothing. */
  isLive: (project: StoredProject) => boolean;
  /** A run fell due at `at` (emulated ms). */
  fire: (project: StoredProject, at: number) => void;
}

/** Runs each project at `nextRunAt`, then by its interval while scheduling is enabled. */
export class ProjectScheduler {
  /** Drops the one timer each project has: re-arming replaces it, so a PATCH that moves a run leaves none behind. */
  private readonly cancels = new WeakMap<StoredProject, () => void>();

  constructor(private readonly options: SchedulerOptions) {}

  /** Sets the timer of the project's next run in place of the one it had; none when it has no next run (archived). */
  arm(project: StoredProject): void {
    this.cancels.get(project)?.();
    this.cancels.delete(project);
    const at = project.nextRunAt;
    if (at === null) return;
    this.cancels.set(
      project,
      this.options.clock.at(at, () => this.due(project, at)),
    );
  }

  private due(project: StoredProject, at: number): void {
    if (!this.options.isLive(project) || project.nextRunAt !== at) return;
    project.nextRunAt = following(project, at);
    this.arm(project);
    this.options.fire(project, at);
  }
}

/** The run after one scheduled at `at`: none for scrape-once, or when scheduling is disabled. */
function following(project: StoredProject, at: number): number | null {
  if (!project.schedulingEnabled || project.scrapingInterval === ONCE) return null;
  return nextAfter(project.scrapingInterval, at);
}

/** The next run after `after` for a named interval or a cron expression (UTC). */
export function nextAfter(interval: string, after: number): number | null {
  if (interval === 'hourly') return after + HOUR;
  if (interval === 'daily') return after + DAY;
  if (interval === 'weekly') return after + 7 * DAY;
  if (interval === 'monthly') {
    // The same day of the next month, or its last day when it is shorter: setUTCMonth alone overflows (January 31
    // gave March 3), leaving February without a run.
    const date = new Date(after);
    const day = date.getUTCDate();
    date.setUTCDate(1);
    date.setUTCMonth(date.getUTCMonth() + 1);
    const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
    date.setUTCDate(Math.min(day, lastDay));
    return date.getTime();
  }
  if (interval === ONCE) return null;
  const next = new Cron(interval, { paused: true, timezone: 'Etc/UTC' }).nextRun(new Date(after));
  return next === null ? null : next.getTime();
}

/** A project's `scheduledAt` as emulated ms: `now` is the current time. */
export function resolveScheduledAt(value: string, now: number): number {
  return value === 'now' ? now : Date.parse(value);
}
