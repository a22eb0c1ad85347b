import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isRunningNow,
  isWaitingToRun,
  jobRunAt,
  jobTime,
  newestJob,
  normaliseJobStatus,
} from '../../../src/api/job-status.js';

describe('normaliseJobStatus', () => {
  it.each([
    ['Finished', 'finished'],
    ['COMPLETED', 'finished'],
    ['done', 'finished'],
    ['Cancelled', 'cancelled'],
    ['canceled', 'cancelled'],
    ['Failed', 'failed'],
    ['ERROR', 'failed'],
    ['Running', 'running'],
    ['in progress', 'running'],
    ['IN-PROGRESS', 'running'],
    ['queued', 'running'],
    ['Stopped', 'cancelled'],
    ['TERMINATED', 'cancelled'],
    ['killed', 'cancelled'],
    ['Timed out', 'failed'],
    ['TIMED-OUT', 'failed'],
    ['timeout', 'failed'],
    ['Crashed', 'failed'],
    ['Paused', 'unknown'],
    ['Partially completed', 'unknown'],
    ['', 'unknown'],
    [undefined, 'unknown'],
    [3, 'unknown'],
  ])('%j -> %s', (raw, kind) => {
    expect(normaliseJobStatus(raw)).toBe(kind);
  });
});

describe('newestJob', () => {
  it('picks by createdAt, not by list position', () => {
    const jobs = [
      { id: 3, createdAt: '2026-11-22T10:00:00Z' },
      { id: 1, createdAt: '2026-11-20T10:00:00Z' },
      { id: 2, createdAt: '2026-11-21T10:00:00Z' },
    ];
    expect(newestJob(jobs)?.id).toBe(3);
  });

  it('reads snake_case and the scheduled time when there is no creation time', () => {
    const jobs = [
      { id: 'b', supposedToRunAt: '2026-11-22T10:00:00Z' },
      { id: 'a', created_at: '2026-11-21T10:00:00Z' },
    ];
    expect(newestJob(jobs)?.id).toBe('b');
  });

  it('prefers the creation time over the start time, so a queued job with no start yet still counts', () => {
    const jobs = [
      { id: 'old', createdAt: '2026-11-20T00:00:00Z', startedAt: '2026-11-20T00:00:05Z' },
      { id: 'queued', createdAt: '2026-11-22T00:00:00Z', startedAt: null },
    ];
    expect(newestJob(jobs)?.id).toBe('queued');
  });

  it('reads epoch seconds and milliseconds alike', () => {
    expect(jobTime({ createdAt: 1_790_000_000 })).toBe(1_790_000_000_000);
    expect(jobTime({ createdAt: 1_790_000_000_123 })).toBe(1_790_000_000_123);
    expect(jobTime({ createdAt: 'not a date', startedAt: '2026-11-22T00:00:00.000Z' })).toBe(
      Date.parse('2026-11-22T00:00:00.000Z'),
    );
    expect(jobTime({ id: 1 })).toBeUndefined();
  });

  // Review: an epoch time sent as a string was NaN to Date.parse ("1732700000"), or a wrong date ("2024" the year,
  // "0" the year 2000): the job counted as one without a time, or as a job of another day.
  it.each([
    ['1732700000', 1_732_700_000_000],
    ['1732700000123', 1_732_700_000_123],
    [' 1732700000 ', 1_732_700_000_000],
    ['1732700000.5', 1_732_700_000_500],
    ['2024', 2_024_000],
    ['99999999999', 99_999_999_999_000],
    ['100000000000', 100_000_000_000],
  ])('reads the string %j as the epoch number it spells', (text, ms) => {
    expect(jobTime({ createdAt: text })).toBe(ms);
    expect(jobTime({ createdAt: text })).toBe(jobTime({ createdAt: Number(text) }));
  });

  it('reads no time from a string of zeros, and falls back to the next field', () => {
    expect(jobTime({ createdAt: '0' })).toBeUndefined();
    expect(jobTime({ createdAt: '000', startedAt: '1732700000' })).toBe(1_732_700_000_000);
    // Not all digits: a date as written, or none.
    expect(jobTime({ createdAt: '2024-11-27T09:33:20Z' })).toBe(Date.parse('2024-11-27T09:33:20Z'));
    expect(jobTime({ createdAt: '-1732700000' })).toBeUndefined();
  });

  it('picks the newest of jobs dated by epoch strings, seconds and milliseconds mixed, whatever their order', () => {
    const jobs = [
      { id: 'newest', createdAt: '1732700000123' },
      { id: 'oldest', createdAt: '1732600000' },
      { id: 'middle', createdAt: 1_732_650_000 },
      { id: 'undated' },
    ];
    expect(newestJob(jobs)?.id).toBe('newest');
    // A run's new job among those listed before its start (project-jobs.ts), dated as ISO by one field and epoch
    // strings by another: each job's first readable field.
    expect(
      newestJob([
        { id: 'new', created_at: '1732700000' },
        { id: 'old', createdAt: '2024-11-26T00:00:00Z' },
      ])?.id,
    ).toBe('new');
  });

  it('passes over jobs without a time when others have one', () => {
    const jobs = [{ id: 1, createdAt: '2026-11-22T00:00:00Z' }, { id: 2 }];
    expect(newestJob(jobs)?.id).toBe(1);
  });

  it('falls back to the last in the list only when no job has a time', () => {
    expect(newestJob([{ id: 1 }, { id: 2, status: 'Running' }])?.id).toBe(2);
    expect(newestJob([])).toBeUndefined();
  });
});

describe('isWaitingToRun and jobRunAt', () => {
  it.each(['Queued', 'pending', 'SCHEDULED', 'Waiting', 'created', 'New'])(
    '%s waits to run, and is not running now',
    (raw) => {
      expect(isWaitingToRun(raw)).toBe(true);
      expect(isRunningNow(raw)).toBe(false);
    },
  );

  it.each(['Running', 'In progress', 'Finished', 'Cancelled', 'Idle', undefined, 3])(
    '%s does not wait to run',
    (raw) => {
      expect(isWaitingToRun(raw)).toBe(false);
    },
  );

  it('reads when a job is to run from its run-time fields only, not from when it was made or started', () => {
    expect(jobRunAt({ supposedToRunAt: '2026-11-28T00:00:00Z' })).toEqual({
      at: Date.parse('2026-11-28T00:00:00Z'),
      field: 'supposedToRunAt',
      raw: '2026-11-28T00:00:00Z',
    });
    expect(jobRunAt({ supposed_to_run_at: 1_795_737_840 })?.at).toBe(1_795_737_840_000);
    expect(jobRunAt({ scheduledAt: 'soon', scheduled_at: '1795737840000' })).toEqual({
      at: 1_795_737_840_000,
      field: 'scheduled_at',
      raw: '1795737840000',
    });
    expect(
      jobRunAt({ createdAt: '2026-11-28T00:00:00Z', startedAt: '2026-11-28T00:00:00Z' }),
    ).toBeUndefined();
  });
});

describe('job times whatever the unit or zone they are sent in', () => {
  // Review: Date.parse reads a date and time with no zone in this machine's zone, so the run guard was hours off
  // (a second, paid run on a runner in New York, a refusal on one in Kolkata). Node reads TZ as it changes.
  const zone = process.env['TZ'];
  beforeAll(() => void (process.env['TZ'] = 'America/New_York'));
  afterAll(() => void (zone === undefined ? delete process.env['TZ'] : (process.env['TZ'] = zone)));

  it('runs in a zone other than UTC', () => {
    expect(new Date(Date.UTC(2026, 10, 27)).getHours()).toBe(19);
  });

  it.each([
    '2026-11-27T00:00:00',
    '2026-11-27 00:00:00',
    '2026-11-27T00:00',
    '2026-11-27T00:00:00.000',
    '2026-11-27',
    '2026-11-27T00:00:00Z',
    '2026-11-27T01:00:00+01:00',
    '2026-11-27t00:00:00',
    '2026-11-27 00:00:00 +0000',
    '2026-11-27T01:00:00+01',
    '2026-11-26T19:00:00-0500',
    'Fri, 27 Nov 2026 00:00:00 GMT',
    'Fri, 27 Nov 2026 00:00:00 Z',
    'Thu, 26 Nov 2026 19:00:00 EST',
    '2026-11-27T00:00:00 UTC',
    'Fri Nov 27 00:00:00 UTC 2026',
    'Fri Nov 27 2026 00:00:00 GMT+0000 (Coordinated Universal Time)',
    '2026-11-27T00:00:00.000000+00:00',
  ])('reads %j as 2026-11-27T00:00:00Z on any runner', (text) => {
    expect(jobTime({ createdAt: text })).toBe(Date.UTC(2026, 10, 27));
  });

  // Review: forms Date.parse reads in the machine's zone (no zone written, not ISO), or takes for a date ("-5" as
  // 2001-05-01), were read: no runner reads them alike, so they are no time (a waiting job with one holds a start).
  it.each([
    '2026/11/27 00:00:00',
    'Fri, 27 Nov 2026 00:00:00',
    '-5',
    'soon',
    '2026-13-45T00:00:00Z',
    '11-27-2026',
    '1-1-2026',
  ])('reads no time from %j', (text) => {
    expect(jobTime({ createdAt: text })).toBeUndefined();
  });

  it('reads fractions of a second beyond milliseconds, and with a comma', () => {
    expect(jobTime({ createdAt: '2026-11-27T00:00:00.123456Z' })).toBe(Date.UTC(2026, 10, 27) + 123);
    expect(jobTime({ createdAt: '2026-11-27T00:00:00,5' })).toBe(Date.UTC(2026, 10, 27) + 500);
  });

  // Review: microseconds and nanoseconds were read as milliseconds, tens of thousands of years ahead, so a queued
  // job counted as scheduled well ahead and was passed over.
  it.each([
    [1_795_737_600, 'seconds'],
    [1_795_737_600_000, 'milliseconds'],
    [1_795_737_600_000_000, 'microseconds'],
    [1_795_737_600_000_000_000, 'nanoseconds'],
  ])('reads %d as %s', (value) => {
    expect(jobRunAt({ scheduledAt: value })?.at).toBe(Date.UTC(2026, 10, 27));
    expect(jobRunAt({ scheduledAt: String(value) })?.at).toBe(Date.UTC(2026, 10, 27));
  });

  it('reads no time past the last a Date holds', () => {
    expect(jobTime({ createdAt: 1e30, startedAt: 1_795_737_600 })).toBe(Date.UTC(2026, 10, 27));
    expect(jobRunAt({ scheduledAt: '1e400' })).toBeUndefined();
  });
});
