import type { EmulatorClock } from './clock.js';
import type { StoredJob, StoredProject } from './project-records.js';
import { RECORD_LIMIT, RingLog } from './ring-log.js';

const DAY = 24 * 3_600_000;

/** An email the real service would send, kept in the outbox (GET /_emulator/outbox). */
export interface OutboxMessage {
  at: string;
  projectId: number;
  projectName: string;
  kind: 'success' | 'failure';
  cadence: 'with_every_run' | 'daily' | 'weekly';
  subject: string;
  jobIds: number[];
}

/**
 * Email notifications per notificationConfig; daily and weekly ones become digests. The outbox keeps the newest
 * `limit` messages (RECORD_LIMIT), oldest first.
 */
export class Notifications {
  private readonly sent: RingLog<OutboxMessage>;
  readonly outbox: OutboxMessage[];
  private readonly digests = new Map<string, OutboxMessage>();

  constructor(
    private readonly clock: EmulatorClock,
    options: { limit?: number } = {},
  ) {
    this.sent = new RingLog<OutboxMessage>(options.limit ?? RECORD_LIMIT);
    this.outbox = this.sent.view;
  }

  notify(project: StoredProject, job: StoredJob): void {
    const kind = job.status === 'Failed' ? 'failure' : 'success';
    const cadence =
      kind === 'success'
        ? project.notificationConfig.notifyOnSuccess
        : project.notificationConfig.notifyOnFailure;
    if (cadence === 'never') return;
    const subject = `${project.name}: job ${job.id} ${job.status.toLowerCase()} (${job.doneCount} done, ${job.failedCount} failed)`;
    if (cadence === 'with_every_run') {
      this.sent.add({
        at: this.clock.iso(),
        projectId: project.id,
        projectName: project.name,
        kind,
        cadence,
        subject,
        jobIds: [job.id],
      });
      return;
    }
    const now = this.clock.now();
    // Digests go out at the end of the UTC day, or of the week (Monday 00:00 UTC).
    const end = cadence === 'daily' ? Math.floor(now / DAY) * DAY + DAY : nextMonday(now);
    const key = `${project.id}:${kind}:${cadence}:${end}`;
    const existing = this.digests.get(key);
    if (existing !== undefined) {
      existing.jobIds.push(job.id);
      existing.subject = `${project.name}: ${cadence} digest, ${existing.jobIds.length} ${kind === 'success' ? 'successful' : 'failed'} jobs`;
      return;
    }
    const digest: OutboxMessage = {
      at: new Date(end).toISOString(),
      projectId: project.id,
      projectName: project.name,
      kind,
      cadence: cadence as 'daily' | 'weekly',
      subject: `${project.name}: ${cadence} digest, 1 ${kind === 'success' ? 'successful' : 'failed'} job`,
      jobIds: [job.id],
    };
    this.digests.set(key, digest);
    this.clock.at(end, () => {
      this.digests.delete(key);
      this.sent.add(digest);
    });
  }

  reset(): void {
    this.sent.clear();
    this.digests.clear();
  }
}

function nextMonday(now: number): number {
  const day = new Date(Math.floor(now / DAY) * DAY);
  const daysToMonday = (8 - day.getUTCDay()) % 7 || 7;
  return day.getTime() + daysToMonday * DAY;
}
