import { describe, expect, it } from 'vitest';
import { idNamedIn } from '../../../src/api/see-other.js';

describe('idNamedIn: the id a 303 Location names in a collection', () => {
  const parsers = 'https://aiparser.test/parsers';

  it.each([
    ['https://aiparser.test/parsers/p-9', 'p-9'],
    ['https://aiparser.test/parsers/p-9?api_key=***', 'p-9'],
    ['https://aiparser.test/parsers/a%20b', 'a b'],
  ])('%s names %s', (location, id) => {
    expect(idNamedIn(location, parsers)).toBe(id);
  });

  it('a version after the id only where the collection has versions (a parser)', () => {
    expect(idNamedIn('https://aiparser.test/parsers/p-9/0', parsers, true)).toBe('p-9');
    expect(idNamedIn('https://aiparser.test/parsers/p-9/0', parsers)).toBeUndefined();
    expect(idNamedIn('https://aiparser.test/parsers/p-9/latest', parsers, true)).toBeUndefined();
  });

  it.each([
    'https://elsewhere.test/parsers/p-9',
    'http://aiparser.test/parsers/p-9',
    'https://aiparser.test/parsers',
    'https://aiparser.test/parsers/',
    'https://aiparser.test/parsersx/p-9',
    'https://aiparser.test/maintenance',
    'https://aiparser.test/parsers/p-9/0/extra',
    'https://aiparser.test/parsers/%E0%A4%A',
    'not a url',
  ])('%s names none', (location) => {
    expect(idNamedIn(location, parsers, true)).toBeUndefined();
  });

  it('under a base URL with a path of its own', () => {
    expect(
      idNamedIn('https://gw.test/pipeline/api/projects/522', 'https://gw.test/pipeline/api/projects'),
    ).toBe('522');
    expect(
      idNamedIn('https://gw.test/api/projects/522', 'https://gw.test/pipeline/api/projects'),
    ).toBeUndefined();
  });
});
