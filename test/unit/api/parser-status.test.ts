import { describe, expect, it } from 'vitest';
import { failureReason, normaliseParserStatus, parserStatusKind } from '../../../src/api/parser-status.js';

describe('normaliseParserStatus', () => {
  it.each([
    ['FINISHED', 'FINISHED'],
    ['finished', 'FINISHED'],
    ['FINISED', 'FINISHED'],
    ['Finised', 'FINISHED'],
    [' generating ', 'GENERATING'],
    ['Failed', 'FAILED'],
    ['QUEUED', 'QUEUED'],
    ['in review', 'in review'],
  ])('%j -> %j', (raw, expected) => {
    expect(normaliseParserStatus(raw)).toBe(expected);
  });
});

describe('parserStatusKind', () => {
  it.each([
    ['FINISHED', 'done'],
    ['finised', 'done'],
    ['FAILED', 'failed'],
    ['failed', 'failed'],
    ['GENERATING', 'working'],
    ['QUEUED', 'working'],
    ['ERROR', 'working'],
    ['', 'working'],
  ])('%j is %s', (status, kind) => {
    expect(parserStatusKind(status)).toBe(kind);
  });
});

describe('failureReason', () => {
  it.each([
    ['GenerationError: no price found', 'GenerationError: no price found'],
    [null, 'no error given'],
    [undefined, 'no error given'],
    ['', 'no error given'],
    ['  ', 'no error given'],
  ])('%j reads as %j', (error, reason) => {
    expect(failureReason(error)).toBe(reason);
  });
});
