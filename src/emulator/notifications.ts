import type { EmulatorClock } from './clock.js';
import type { StoredJob, StoredProject } from './project-records.js';

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

/** Email notifications per notificationConfig; daily and weekly ones become digests. */
export class Notifications {
  readonly outbox: OutboxMessage[] = [];
  private readonly digests = new Map<string, OutboxMessage>();

  constructor(private readonly clock: EmulatorClock) {}

  notify(project: StoredProject, job: StoredJob): void {
    const kind = job.status === 'Failed' ? 'failure' : 'success';
    const cadence =
      kind === 'success'
        ? project.notificationConfig.notifyOnSuccess
        : project.notificationConfig.notifyOnFailure;
    if (cadence === 'never') return;
    const subject = `${project.name}: job ${job.id} ${job.status.toLowerCase()} (${job.doneCount} done, ${job.failedCount} failed)`;
    if (cadence === 'with_every_run') {
      this.outbox.push({
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
      this.outbox.push(digest);
    });
  }

  reset(): void {
    this.outbox.length = 0;
    this.digests.clear();
  }
}

function nextMonday(now: number): number {
  const day = new Date(Math.floor(now / DAY) * DAY);
  const daysToMonday = (8 - day.getUTCDay()) % 7 || 7;
  return day.getTime() + daysToMonday * DAY;
}
