import { describe, expect, it } from 'vitest';
import type { LiveJob } from '../../../src/api/live.js';
import { ScrapeformError } from '../../../src/errors.js';
import {
  AHEAD_MS,
  RunJobPicker,
  refuseWhileRunning,
  runsWellAhead,
  takenOverJob,
} from '../../../src/workspace/run-guard.js';

const NOW = Date.UTC(2026, 10, 27);
const at = (ms: number) => new Date(NOW + ms).toISOString();
const DAY = 24 * 60 * 60_000;
/** The next scheduled run, listed a day ahead of its time before the start. */
const SCHEDULED: LiveJob = { id: 'j-40', status: 'Scheduled', supposedToRunAt: at(DAY), attempts: 0 };

const beforeOf = (...jobs: LiveJob[]) => new Map(jobs.map((j) => [String(j.id), j]));
const taken = (prior: LiveJob, now: LiveJob, time = NOW) => takenOverJob(beforeOf(prior), [now], time)?.id;

describe('runsWellAhead: the next scheduled run, listed ahead of its time', () => {
  it.each([
    [at(AHEAD_MS + 1), true],
    [at(AHEAD_MS), false],
    [at(-1), false],
    [at(400 * DAY), false],
  ])('a scheduled job due at %s: %s', (time, ahead) => {
    expect(runsWellAhead({ id: 1, status: 'scheduled', scheduledAt: time }, NOW)).toBe(ahead);
  });

  it('only for a job that waits to run, and has a time', () => {
    expect(runsWellAhead({ id: 1, status: 'Running', scheduledAt: at(DAY) }, NOW)).toBe(false);
    expect(runsWellAhead({ id: 1, scheduledAt: at(DAY) }, NOW)).toBe(false);
    expect(runsWellAhead({ id: 1, status: 'Queued' }, NOW)).toBe(false);
  });
});

describe('takenOverJob: a scheduled record the start took over, for --wait to follow', () => {
  it('one that runs now, whatever the spelling of its status', () => {
    expect(taken(SCHEDULED, { ...SCHEDULED, status: 'Running' })).toBe('j-40');
    expect(taken({ ...SCHEDULED, status: 'SCHEDULED' }, { ...SCHEDULED, status: 'in progress' })).toBe(
      'j-40',
    );
  });

  it('one still waiting whose time moved to within 5 minutes: a change of time alone', () => {
    expect(taken(SCHEDULED, { ...SCHEDULED, supposedToRunAt: at(60_000) })).toBe('j-40');
    expect(taken(SCHEDULED, { ...SCHEDULED, supposedToRunAt: at(-60_000) })).toBe('j-40');
  });

  it('one that counts more attempts, even if it ended between two looks', () => {
    expect(taken(SCHEDULED, { ...SCHEDULED, attempts: 1 })).toBe('j-40');
    expect(taken(SCHEDULED, { ...SCHEDULED, status: 'Finished', attempts: '1' })).toBe('j-40');
  });

  // Review: any change of status or time was taken for the start's, so a scheduled run cancelled by someone, or one
  // moved to next week, was followed and reported as the run's.
  it('not one whose first change is to an ended status, nor one whose time moved later', () => {
    expect(taken(SCHEDULED, { ...SCHEDULED, status: 'Cancelled' })).toBeUndefined();
    expect(taken(SCHEDULED, { ...SCHEDULED, status: 'Finished' })).toBeUndefined();
    expect(taken(SCHEDULED, { ...SCHEDULED, supposedToRunAt: at(7 * DAY) })).toBeUndefined();
    expect(taken(SCHEDULED, { ...SCHEDULED, supposedToRunAt: at(AHEAD_MS + 60_000) })).toBeUndefined();
    expect(taken(SCHEDULED, { ...SCHEDULED, status: 'Idle' })).toBeUndefined();
  });

  it('not one that was not waiting well ahead before the start', () => {
    expect(taken({ ...SCHEDULED, status: 'Finished' }, { ...SCHEDULED, status: 'Running' })).toBeUndefined();
    expect(taken({ id: 'j-40', status: 'Queued' }, { id: 'j-40', status: 'Running' })).toBeUndefined();
    expect(
      taken({ ...SCHEDULED, supposedToRunAt: at(4 * 60_000) }, { ...SCHEDULED, status: 'Running' }),
    ).toBe(undefined);
    expect(
      taken({ ...SCHEDULED, supposedToRunAt: '9999-12-31T00:00:00Z' }, { ...SCHEDULED, status: 'Running' }),
    ).toBeUndefined();
  });

  // Review: the check was "its time is still ahead", with no margin: a record due a minute later that began at its
  // own time was taken for the start's.
  it('not one whose own time has come within 5 minutes since it was listed: it may have begun by itself', () => {
    const soon = { ...SCHEDULED, supposedToRunAt: at(6 * 60_000) };
    expect(taken(soon, { ...soon, status: 'Running' })).toBe('j-40');
    expect(taken(soon, { ...soon, status: 'Running' }, NOW + 2 * 60_000)).toBeUndefined();
  });

  it('matches ids as text, as they were keyed before the start', () => {
    const numbered = { ...SCHEDULED, id: 40 };
    expect(takenOverJob(beforeOf(numbered), [{ ...numbered, status: 'Running' }], NOW)?.id).toBe(40);
  });
});

describe('refuseWhileRunning', () => {
  const project = { id: 522, address: 'project.nightly' };
  const refusal = (jobs: LiveJob[]): ScrapeformError => {
    try {
      refuseWhileRunning(jobs, project, 'nightly', false, NOW);
    } catch (error) {
      if (error instanceof ScrapeformError) return error;
      throw error;
    }
    throw new Error('not refused');
  };

  it('lists the ids as sent in the details, and printable in the message', () => {
    const error = refusal([{ id: 'j\u001b[31m-1', status: 'Running' }]);
    expect(error.message).toMatch(
      /^project\.nightly was not started: job j\\u001b\[31m-1 is running \(Running\)/,
    );
    expect(error.details).toEqual({ started: false, projectId: 522, jobs: ['j\u001b[31m-1'] });
  });

  it('a running job alone: the hint says to wait for it to end', () => {
    expect(refusal([{ id: 41, status: 'Running' }]).hint).toBe(
      'wait for it to end (scrapeform jobs nightly shows it), or cancel it (scrapeform cancel nightly JOB_ID), then run again; --allow-concurrent starts it anyway',
    );
  });

  it('a waiting job: the hint says a cancel may be refused, and when --allow-concurrent is the way', () => {
    expect(refusal([{ id: 41, status: 'Queued' }]).hint).toBe(
      "wait for it to run and end (scrapeform jobs nightly shows it), or cancel it (scrapeform cancel nightly JOB_ID; a service may refuse to cancel a job that has not started), then run again; if a waiting job is the project's next scheduled run rather than a start, --allow-concurrent starts it anyway",
    );
  });

  it('a job waiting exactly 5 minutes ahead holds the start back; one a millisecond more does not', () => {
    expect(refusal([{ id: 41, status: 'Queued', scheduledAt: at(AHEAD_MS) }]).code).toBe(
      'run.already-running',
    );
    expect(() =>
      refuseWhileRunning(
        [{ id: 41, status: 'Queued', scheduledAt: at(AHEAD_MS + 1) }],
        project,
        'nightly',
        false,
        NOW,
      ),
    ).not.toThrow();
  });
});

// Review: a time with no zone was read as UTC alone, so a start queued 10 s ago in a zone 1 hour east of UTC
// (`2026-11-27 00:59:50` for 23:59:50 UTC) read as an hour ahead, was passed over, and a second paid run started.
describe('a time to run written with no time zone', () => {
  const project = { id: 522, address: 'project.nightly' };
  const local = (ms: number) =>
    at(ms)
      .replace('T', ' ')
      .replace(/\.\d+Z$/, '');

  it('holds the start back unless it is more than 14 hours and 5 minutes ahead, saying why', () => {
    const queued: LiveJob = { id: 'j-2', status: 'Queued', scheduledAt: local(60 * 60_000) };
    expect(runsWellAhead(queued, NOW)).toBe(false);
    expect(() => refuseWhileRunning([queued], project, 'nightly', false, NOW)).toThrow(
      'job j-2 waits to run (Queued, scheduledAt "2026-11-27 01:00:00" read as 2026-11-27T01:00:00.000Z, with no time zone written: it may be due within 5 minutes)',
    );
    expect(runsWellAhead({ ...queued, scheduledAt: local(14 * 60 * 60_000 + AHEAD_MS + 60_000) }, NOW)).toBe(
      true,
    );
  });

  it('a time with its zone, or an epoch time, is read as it says', () => {
    expect(runsWellAhead({ id: 1, status: 'Queued', scheduledAt: at(60 * 60_000) }, NOW)).toBe(true);
    expect(runsWellAhead({ id: 1, status: 'Queued', scheduledAt: (NOW + 60 * 60_000) / 1000 }, NOW)).toBe(
      true,
    );
  });

  it('run --wait does not pass it over either', () => {
    const queued: LiveJob = { id: 'j-2', status: 'Queued', scheduledAt: local(60 * 60_000) };
    expect(new RunJobPicker(beforeOf()).pick([queued], NOW)?.id).toBe('j-2');
  });
});

// Review: a job's times misread (a zone or a unit) made a start queued a moment ago look well ahead. One whose own
// past (createdAt, startedAt) also reads as ahead has times that are not read right: it holds the start back.
describe('a waiting job whose creation time also reads as ahead', () => {
  const project = { id: 522, address: 'project.nightly' };
  const misread: LiveJob = { id: 'j-3', status: 'Queued', scheduledAt: at(DAY), createdAt: at(DAY) };

  it('is not passed over, and the refusal names both times', () => {
    expect(runsWellAhead(misread, NOW)).toBe(false);
    expect(() => refuseWhileRunning([misread], project, 'nightly', false, NOW)).toThrow(
      `job j-3 waits to run (Queued, scheduledAt "${at(DAY)}" read as ${at(DAY)}, but createdAt "${at(DAY)}" read as ${at(DAY)} is ahead too: its times are not read right)`,
    );
    expect(new RunJobPicker(beforeOf()).pick([misread], NOW)?.id).toBe('j-3');
  });

  it('one made in the past, or with no such time, is passed over as before', () => {
    expect(runsWellAhead({ ...misread, createdAt: at(-DAY) }, NOW)).toBe(true);
    expect(runsWellAhead({ id: 'j-4', status: 'Queued', scheduledAt: at(DAY) }, NOW)).toBe(true);
  });
});

describe('RunJobPicker: the job run --wait follows', () => {
  const picker = (...before: LiveJob[]) => new RunJobPicker(beforeOf(...before));
  const MIN = 60_000;

  // Review: new jobs were ranked by any time, a time ahead included, so a new record of the next run (or a
  // placeholder 9999-12-31) won over the run's own job, which ended unseen while the wait ran out.
  it('a new job that runs or ended wins over a new record waiting to run, whatever its time', () => {
    const run = { id: 'a', status: 'Running', createdAt: at(0) };
    expect(
      picker().pick([run, { id: 'b', status: 'Scheduled', supposedToRunAt: '9999-12-31T00:00:00Z' }], NOW),
    ).toBe(run);
    expect(picker().pick([{ id: 'b', status: 'Queued', scheduledAt: at(4 * MIN) }, run], NOW)).toBe(run);
    const done = { id: 'c', status: 'Finished', startedAt: at(0) };
    expect(picker().pick([done, { id: 'd', status: 'Queued', createdAt: at(1) }], NOW)).toBe(done);
  });

  it('a record the start took over wins over a new record waiting to run', () => {
    const taken = { ...SCHEDULED, status: 'Running' };
    expect(picker(SCHEDULED).pick([taken, { id: 'next', status: 'Scheduled' }], NOW)).toBe(taken);
  });

  it('a new job waiting to run is shown, but a job of the run that shows later wins, and is then kept', () => {
    const p = picker();
    const queued = { id: 'q', status: 'Queued' };
    expect(p.pick([queued], NOW)).toBe(queued);
    const run = { id: 'r', status: 'Running' };
    expect(p.pick([queued, run], NOW + 1000)).toBe(run);
    expect(p.pick([{ ...queued, status: 'Running' }, run], NOW + 2000)).toBe(run);
    // Followed by its id: a list that lags and leaves it out shows no job (runProject keeps the last seen).
    expect(p.pick([{ ...queued, status: 'Running' }], NOW + 3000)).toBeUndefined();
  });

  // Review: a new record due 10 minutes ahead was passed over only while it was more than 5 minutes ahead; at the
  // look 8 minutes on, it was taken for the run's job, and its own scheduled run reported as this one.
  it('never takes a new record first seen waiting well ahead, even once its time comes near or it begins', () => {
    const p = picker();
    const next = { id: 'n', status: 'Scheduled', supposedToRunAt: at(10 * MIN) };
    expect(p.pick([next], NOW)).toBeUndefined();
    expect(p.pick([next], NOW + 8 * MIN)).toBeUndefined();
    expect(p.pick([{ ...next, status: 'Running' }], NOW + 11 * MIN)).toBeUndefined();
    const run = { id: 'r', status: 'Finished' };
    expect(p.pick([{ ...next, status: 'Running' }, run], NOW + 12 * MIN)).toBe(run);
  });

  // Second review: the run's own job, dated well ahead by a clock that differs, was passed over for good, and the
  // wait ran out on a run that had finished.
  it('takes a record passed over once it runs while its own time is still well ahead: only the start explains that', () => {
    const p = picker();
    const own = { id: 'o', status: 'Queued', supposedToRunAt: at(10 * MIN) };
    expect(p.pick([own], NOW)).toBeUndefined();
    expect(p.pick([{ ...own, status: 'Running' }], NOW + MIN)).toEqual({ ...own, status: 'Running' });
    expect(p.pick([{ ...own, status: 'Finished' }], NOW + 2 * MIN)).toEqual({ ...own, status: 'Finished' });
  });

  // Second review: a placeholder of a status scrapeform does not know, or a next run cancelled unstarted, made after
  // the run's job, was taken for it (ranked by when it was made) and followed to the end of the wait.
  it('passes over a new record with a time well ahead whatever its status, unless it runs or finished', () => {
    const p = picker();
    const placeholder = {
      id: 'n',
      status: 'Idle',
      createdAt: at(1000),
      supposedToRunAt: at(7 * 24 * 60 * MIN),
    };
    const own = { id: 'o', status: 'Queued', createdAt: at(0) };
    expect(p.pick([own, placeholder], NOW)).toBe(own);
    const dropped = { ...placeholder, id: 'c', status: 'Cancelled' };
    const ran = { ...own, status: 'Finished' };
    expect(p.pick([ran, placeholder, dropped], NOW + MIN)).toBe(ran);
  });

  it('ranks jobs that ran by when they began before when they were made', () => {
    const ranLater = { id: 'a', status: 'Finished', createdAt: at(0), startedAt: at(5000) };
    const madeLater = { id: 'b', status: 'Cancelled', createdAt: at(3000) };
    expect(picker().pick([madeLater, ranLater], NOW)).toBe(ranLater);
  });
});
