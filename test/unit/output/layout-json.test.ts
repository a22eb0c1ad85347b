import { describe, expect, it } from 'vitest';
import { diffInputEntries } from '../../../src/output/diff-input-entries.js';
import { layoutJson } from '../../../src/output/layout-json.js';

describe('layoutJson: a request body for a terminal', () => {
  const layout = { width: 40, maxListItems: 3 };

  it('keeps a value that fits on one line', () => {
    expect(layoutJson({ a: 1, b: [true, null] }, layout)).toEqual(['{"a":1,"b":[true,null]}']);
  });

  it('breaks only between values: a string longer than the width stays whole on its line', () => {
    const long = 'x'.repeat(70);
    expect(layoutJson({ name: 'n', description: long, nested: { k: 'v' } }, layout, 2)).toEqual([
      '  {',
      '    "name": "n",',
      `    "description": "${long}",`,
      '    "nested": {"k":"v"}',
      '  }',
    ]);
  });

  it('shows a long list of plain values in part, whole entries and a count; a list of objects whole', () => {
    const entries = [
      'https://a.example/1',
      'https://a.example/2',
      'https://a.example/3',
      'https://a.example/4',
    ];
    expect(layoutJson({ list: entries }, layout)).toEqual([
      '{',
      '  "list": [',
      '    "https://a.example/1",',
      '    "https://a.example/2",',
      '    "https://a.example/3",',
      '    … 1 more',
      '  ]',
      '}',
    ]);
    const fields = [1, 2, 3, 4].map((n) => ({ name: `field-${n}`, description: 'd' }));
    expect(layoutJson(fields, layout).filter((l) => l.includes('"name"'))).toHaveLength(4);
  });

  it('puts commas between items only, skips undefined keys, shows undefined items as null, and lays out lists of lists', () => {
    const value = {
      a: 'x'.repeat(30),
      skipped: undefined,
      list: [[1, 2], undefined, { k: 'y'.repeat(40) }],
      last: 1,
    };
    expect(layoutJson(value, layout)).toEqual([
      '{',
      `  "a": "${'x'.repeat(30)}",`,
      '  "list": [',
      '    [1,2],',
      '    null,',
      '    {',
      `      "k": "${'y'.repeat(40)}"`,
      '    }',
      '  ],',
      '  "last": 1',
      '}',
    ]);
  });

  it('shows exactly maxListItems plain values with no count, and takes the JSON the caller already made', () => {
    const list = ['https://a.example/1', 'https://a.example/2', 'https://a.example/3'];
    const json = JSON.stringify({ list });
    expect(layoutJson({ list }, layout, 0, json)).toEqual([
      '{',
      '  "list": [',
      '    "https://a.example/1",',
      '    "https://a.example/2",',
      '    "https://a.example/3"',
      '  ]',
      '}',
    ]);
    // A value that has no JSON reads as null, as JSON.stringify writes it in a list.
    expect(layoutJson(undefined, layout)).toEqual(['null']);
  });

  it('escapes what would split or colour a terminal line', () => {
    const lines = layoutJson({ bidi: 'a\u202eb', long: 'y'.repeat(50) }, layout);
    expect(lines.join('\n')).toContain('"bidi": "a\\u202eb",');
  });
});

describe('diffInputEntries', () => {
  it('lists the first entries added and removed, in list order, and counts the rest', () => {
    const before = ['a', 'b', 'c', 'd'];
    const after = ['d', 'c', 'x', 'y', 'z'];
    expect(diffInputEntries(before, after, 2)).toEqual({
      added: ['x', 'y'],
      removed: ['a', 'b'],
      moreAdded: 1,
      moreRemoved: 0,
      addedCount: 3,
      removedCount: 2,
    });
  });

  it('a reordered list adds and removes nothing', () => {
    expect(diffInputEntries(['a', 'b'], ['b', 'a'])).toMatchObject({ addedCount: 0, removedCount: 0 });
  });
});
