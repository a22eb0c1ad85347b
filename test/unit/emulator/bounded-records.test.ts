import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmulatorClock } from '../../../src/emulator/clock.js';
import { Notifications } from '../../../src/emulator/notifications.js';
import type { StoredJob, StoredProject } from '../../../src/emulator/project-records.js';
import { WebhookSender } from '../../../src/emulator/webhook-delivery.js';

// The outbox and the webhook deliveries keep the newest records up to a limit, as the request log does, so an
// emulator left up for days does not grow without bound. A small limit is injected to keep the tests fast.

const T0 = Date.parse('2031-03-03T10:00:00.000Z');
const HOUR = 3_600_000;

function project(overrides: Partial<StoredProject> = {}): StoredProject {
  return {
    id: 1,
    account: 'k',
    name: 'p',
    schedulingEnabled: true,
    scrapingInterval: 'hourly',
    scheduledAt: null,
    createdAt: new Date(T0).toISOString(),
    projectType: 'urls',
    projectInput: { type: 'list', list: [] },
    projectOutput: { type: 'save' },
    webhookOutput: null,
    notificationConfig: { notifyOnSuccess: 'with_every_run', notifyOnFailure: 'with_every_run' },
    apiParams: {},
    output_format: 'JSON',
    nextRunAt: null,
    queued: [],
    running: null,
    ...overrides,
  };
}

function job(id: number): StoredJob {
  return {
    id,
    projectId: 1,
    status: 'Finished',
    scheduledFor: new Date(T0).toISOString(),
    startedAt: new Date(T0).toISOString(),
    finishedAt: new Date(T0).toISOString(),
    inputCount: 0,
    doneCount: 0,
    failedCount: 0,
    credits: 0,
    resultsUrl: '',
    error: null,
    results: [],
  };
}

describe('outbox', () => {
  it('keeps the newest messages up to its limit, oldest first, digests included', () => {
    const clock = new EmulatorClock(() => T0);
    const mail = new Notifications(clock, { limit: 3 });
    const daily = project({
      id: 2,
      notificationConfig: { notifyOnSuccess: 'daily', notifyOnFailure: 'never' },
    });
    mail.notify(daily, job(100));
    for (let id = 1; id <= 5; id++) mail.notify(project(), job(id));
    expect(mail.outbox.map((m) => m.jobIds)).toEqual([[3], [4], [5]]);
    // The daily digest goes out at midnight UTC, after the others: it is the newest and pushes out job 3.
    clock.advance(24 * HOUR);
    expect(mail.outbox.map((m) => m.jobIds)).toEqual([[4], [5], [100]]);
    expect(Array.isArray(mail.outbox)).toBe(true);
    expect(JSON.parse(JSON.stringify(mail.outbox))).toHaveLength(3);
    mail.reset();
    expect(mail.outbox).toEqual([]);
    mail.notify(project(), job(6));
    expect(mail.outbox.map((m) => m.jobIds)).toEqual([[6]]);
    clock.stop();
  });
});

describe('webhook deliveries', () => {
  let receiver: http.Server;
  let url = '';
  let answered = 0;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        answered++;
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it('keeps the newest deliveries up to its limit, oldest first, and reset clears them', async () => {
    const clock = new EmulatorClock(() => T0);
    const sender = new WebhookSender({ clock, tries: 1, limit: 3 });
    const hooked = project({ webhookOutput: { url } });
    for (let id = 1; id <= 5; id++) await sender.deliver(hooked, job(id));
    expect(answered).toBe(5);
    expect(sender.deliveries.map((d) => [d.jobId, d.delivered])).toEqual([
      [3, true],
      [4, true],
      [5, true],
    ]);
    sender.reset();
    expect(sender.deliveries).toEqual([]);
    await sender.deliver(hooked, job(6));
    expect(sender.deliveries.map((d) => d.jobId)).toEqual([6]);
    clock.stop();
  });
});
