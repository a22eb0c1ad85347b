import { expect, it } from 'vitest';
import { LiveProgress } from '../../../src/cli/live-progress.js';
import { createColors } from '../../../src/output/colors.js';

it('redraws one line per object in place, with the time spent generating', () => {
  let now = 0;
  const frames: string[] = [];
  const live = new LiveProgress(
    (text) => frames.push(text),
    createColors(false),
    () => now,
  );
  live.set('parser.books', 'POST /parsers -> 201');
  live.set('project.nightly', 'POST /api/projects -> 201');
  live.set('parser.books', 'GENERATING  version 0', true);
  now = 42_000;
  live.stop();
  expect(frames[0]).toBe('\u001b[2Kparser.books  POST /parsers -> 201\n');
  expect(frames[1]).toBe(
    '\u001b[1A\u001b[2Kparser.books     POST /parsers -> 201\n\u001b[2Kproject.nightly  POST /api/projects -> 201\n',
  );
  expect(frames[frames.length - 1]).toBe(
    '\u001b[2A\u001b[2Kparser.books     GENERATING  version 0  42s\n\u001b[2Kproject.nightly  POST /api/projects -> 201\n',
  );
});
