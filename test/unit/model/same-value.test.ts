import { describe, expect, it } from 'vitest';
import { sameParams, sameWord, sameWords } from '../../../src/model/same-value.js';

describe('sameWord: an enum in another case', () => {
  it.each([
    ['CSV', 'csv'],
    ['JSON', ' json '],
    ['daily', 'DAILY'],
  ])('%s and %s are one', (a, b) => {
    expect([sameWord(a, b), sameWord(b, a)]).toEqual([true, true]);
  });

  it.each([
    ['CSV', 'JSON'],
    ['CSV', null],
    ['CSV', undefined],
    [1, '1'],
  ])('%s and %s stay two', (a, b) => {
    expect(sameWord(a, b)).toBe(false);
  });
});

describe('sameWords: notificationConfig', () => {
  it('the same keys with values in another case are one', () => {
    const sent = { notifyOnSuccess: 'daily', notifyOnFailure: 'with_every_run' };
    expect(sameWords(sent, { notifyOnFailure: 'WITH_EVERY_RUN', notifyOnSuccess: 'Daily' })).toBe(true);
  });

  it.each([
    [{ notifyOnSuccess: 'weekly', notifyOnFailure: 'with_every_run' }],
    [{ notifyOnSuccess: 'daily' }],
    [{ notifyOnSuccess: 'daily', notifyOnFailure: 'with_every_run', extra: 'x' }],
    [null],
    [['daily']],
  ])('%j stays another value', (answered) => {
    expect(sameWords({ notifyOnSuccess: 'daily', notifyOnFailure: 'with_every_run' }, answered)).toBe(false);
  });
});

describe('sameParams: apiParams as the query parameters they travel as', () => {
  it.each([
    [{ render: true }, { render: 'true' }],
    [{ session_number: 5 }, { session_number: '5' }],
    [{ a: [1, true] }, { a: ['1', 'true'] }],
    [{ a: { b: false } }, { a: { b: 'false' } }],
    [{}, {}],
  ])('%j and %j are one', (a, b) => {
    expect([sameParams(a, b), sameParams(b, a)]).toEqual([true, true]);
  });

  it.each([
    [{ country_code: 'us' }, { country_code: 'US' }],
    [{ render: true }, { render: 'false' }],
    [{ render: true }, { render: '1' }],
    [{ render: true }, {}],
    [{ render: true }, { render: true, premium: true }],
    [{ a: [1, 2] }, { a: [1] }],
    [{ a: [1] }, { a: '1' }],
    [{ a: null }, { a: 'null' }],
    [{}, null],
  ])('%j and %j stay two', (a, b) => {
    expect(sameParams(a, b)).toBe(false);
  });
});
