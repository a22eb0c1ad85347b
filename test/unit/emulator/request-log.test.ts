import { describe, expect, it } from 'vitest';
import { RequestLog } from '../../../src/emulator/request-log.js';
import type { RequestLogEntry } from '../../../src/emulator/request-log.js';

const entry = (n: number): RequestLogEntry => ({
  at: '2030-01-01T00:00:00.000Z',
  method: 'GET',
  path: `/parsers/${n}`,
  status: 200,
  durationMs: 0,
});
const paths = (entries: readonly RequestLogEntry[]): string[] => entries.map((e) => e.path);

describe('RequestLog', () => {
  it('keeps the last entries up to its capacity, oldest first', () => {
    const log = new RequestLog(3);
    for (let n = 1; n <= 2; n++) log.add(entry(n));
    expect(paths(log.view)).toEqual(['/parsers/1', '/parsers/2']);
    for (let n = 3; n <= 7; n++) log.add(entry(n));
    expect(paths(log.view)).toEqual(['/parsers/5', '/parsers/6', '/parsers/7']);
    expect(log.view).toHaveLength(3);
    expect(Array.isArray(log.view)).toBe(true);
    expect(JSON.parse(JSON.stringify(log.view))).toEqual([entry(5), entry(6), entry(7)]);
  });

  it('is emptied through its view with length = 0, and keeps logging after', () => {
    const log = new RequestLog(3);
    for (let n = 1; n <= 5; n++) log.add(entry(n));
    log.view.length = 0;
    expect(log.view).toEqual([]);
    log.add(entry(6));
    expect(paths(log.view)).toEqual(['/parsers/6']);
  });

  it('takes entries pushed through its view, bounded again from the next request', () => {
    const log = new RequestLog(2);
    log.add(entry(1));
    log.view.push(entry(2), entry(3));
    expect(paths(log.view)).toEqual(['/parsers/1', '/parsers/2', '/parsers/3']);
    log.add(entry(4));
    expect(paths(log.view)).toEqual(['/parsers/3', '/parsers/4']);
  });

  it('empties on clear', () => {
    const log = new RequestLog(2);
    log.add(entry(1));
    log.clear();
    expect(log.view).toEqual([]);
  });
});
