import { describe, expect, it } from 'vitest';
import { jobTime, newestJob, normaliseJobStatus } from '../../../src/api/job-status.js';

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
    ['Paused', 'unknown'],
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

  it('passes over jobs without a time when others have one', () => {
    const jobs = [{ id: 1, createdAt: '2026-11-22T00:00:00Z' }, { id: 2 }];
    expect(newestJob(jobs)?.id).toBe(1);
  });

  it('falls back to the last in the list only when no job has a time', () => {
    expect(newestJob([{ id: 1 }, { id: 2, status: 'Running' }])?.id).toBe(2);
    expect(newestJob([])).toBeUndefined();
  });
});
