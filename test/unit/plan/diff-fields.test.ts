import { describe, expect, it } from 'vitest';
import type { DesiredField, DesiredRename } from '../../../src/model/desired.js';
import { diffFields } from '../../../src/plan/diff-fields.js';
import type { FieldOperations } from '../../../src/model/wire.js';
import { applyFieldOperations } from '../../../src/plan/field-operations.js';

const f = (name: string, description = `${name} text`, extra: Partial<DesiredField> = {}): DesiredField => ({
  name,
  description,
  ...extra,
});
const parent = (name: string, description = `${name} list`): DesiredField =>
  f(name, description, { type: 'array' });

interface Case {
  name: string;
  previous: DesiredField[];
  desired: DesiredField[];
  renames?: DesiredRename[];
  known?: boolean;
  reassert?: boolean;
  requests: FieldOperations[];
  regenerates: boolean;
}

/** DESIGN section 3, row by row, and every rename case of the plan issue, with the exact request bodies. */
const CASES: Case[] = [
  {
    name: 'nothing changed: no request',
    previous: [f('title'), f('price')],
    desired: [f('title'), f('price')],
    requests: [],
    regenerates: false,
  },
  {
    name: 'renamed_from -> rename_fields',
    previous: [f('subtitle', 'Subtitle')],
    desired: [f('headline', 'Subtitle')],
    renames: [{ from: 'subtitle', to: 'headline' }],
    requests: [{ rename_fields: [{ name: 'subtitle', new_name: 'headline' }] }],
    regenerates: false,
  },
  {
    name: 'a satisfied rename hint is ignored',
    previous: [f('headline', 'Subtitle')],
    desired: [f('headline', 'Subtitle')],
    renames: [{ from: 'subtitle', to: 'headline' }],
    requests: [],
    regenerates: false,
  },
  {
    name: 'children follow a renamed parent with no ops of their own',
    previous: [parent('comments'), f('comments.author'), f('comments.rating')],
    desired: [
      parent('reviews', 'comments list'),
      f('reviews.author', 'comments.author text'),
      f('reviews.rating', 'comments.rating text'),
    ],
    renames: [{ from: 'comments', to: 'reviews' }],
    requests: [{ rename_fields: [{ name: 'comments', new_name: 'reviews' }] }],
    regenerates: false,
  },
  {
    name: 'a child renamed under a renamed parent: parent first, then the child by its new path',
    previous: [parent('comments'), f('comments.name', 'Reviewer')],
    desired: [parent('reviews', 'comments list'), f('reviews.author', 'Reviewer')],
    renames: [
      { from: 'comments', to: 'reviews' },
      { from: 'comments.name', to: 'reviews.author' },
    ],
    requests: [
      { rename_fields: [{ name: 'comments', new_name: 'reviews' }] },
      { rename_fields: [{ name: 'reviews.name', new_name: 'reviews.author' }] },
    ],
    regenerates: false,
  },
  {
    name: 'a removed parent is sent alone, not its children',
    previous: [f('title'), parent('reviews'), f('reviews.author'), f('reviews.rating')],
    desired: [f('title')],
    requests: [{ remove_fields: ['reviews'] }],
    regenerates: false,
  },
  {
    name: 'a removed child alone',
    previous: [parent('reviews'), f('reviews.author'), f('reviews.rating')],
    desired: [parent('reviews'), f('reviews.author')],
    requests: [{ remove_fields: ['reviews.rating'] }],
    regenerates: false,
  },
  {
    name: 'desired only -> add_fields, parents before children',
    previous: [f('title')],
    desired: [f('title'), parent('reviews'), f('reviews.author')],
    requests: [{ add_fields: [parent('reviews'), f('reviews.author')] }],
    regenerates: true,
  },
  {
    name: 'another description, type or selector -> modify_fields',
    previous: [f('price', 'Price'), f('title', 'Title'), f('sku', 'SKU')],
    desired: [
      f('price', 'Price incl. tax'),
      f('title', 'Title', { type: 'string' }),
      f('sku', 'SKU', { selector: '.sku' }),
    ],
    requests: [
      {
        modify_fields: [
          f('price', 'Price incl. tax'),
          f('title', 'Title', { type: 'string' }),
          f('sku', 'SKU', { selector: '.sku' }),
        ],
      },
    ],
    regenerates: true,
  },
  {
    name: 'removed + added with identical definitions -> an inferred rename',
    previous: [f('subtitle', 'Subtitle under the title')],
    desired: [f('tagline', 'Subtitle under the title')],
    requests: [{ rename_fields: [{ name: 'subtitle', new_name: 'tagline' }] }],
    regenerates: false,
  },
  {
    name: 'two equally good matches: no inference, remove + add',
    previous: [f('a', 'Same'), f('b', 'Same')],
    desired: [f('c', 'Same'), f('d', 'Same')],
    requests: [{ remove_fields: ['a', 'b'], add_fields: [f('c', 'Same'), f('d', 'Same')] }],
    regenerates: true,
  },
  {
    name: 'renamed and changed -> remove + add in one request',
    previous: [f('subtitle', 'Subtitle')],
    desired: [f('headline', 'Headline under the title')],
    renames: [{ from: 'subtitle', to: 'headline' }],
    requests: [{ remove_fields: ['subtitle'], add_fields: [f('headline', 'Headline under the title')] }],
    regenerates: true,
  },
  {
    name: 'rename, modify and add in one PATCH (the demo edit)',
    previous: [f('title', 'Title'), f('price', 'Price'), f('availability', 'Stock')],
    desired: [f('title', 'Title'), f('price', 'Price incl. tax'), f('stock', 'Stock'), f('upc', 'UPC')],
    renames: [{ from: 'availability', to: 'stock' }],
    requests: [
      {
        rename_fields: [{ name: 'availability', new_name: 'stock' }],
        modify_fields: [f('price', 'Price incl. tax')],
        add_fields: [f('upc', 'UPC')],
      },
    ],
    regenerates: true,
  },
  {
    name: 'chain a->b, b->c: the move out of the way first',
    previous: [f('a', 'A'), f('b', 'B')],
    desired: [f('b', 'A'), f('c', 'B')],
    renames: [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
    ],
    requests: [
      { rename_fields: [{ name: 'b', new_name: 'c' }] },
      { rename_fields: [{ name: 'a', new_name: 'b' }] },
    ],
    regenerates: false,
  },
  {
    name: 'swap a<->b through a temporary name',
    previous: [f('a', 'A'), f('b', 'B')],
    desired: [f('b', 'A'), f('a', 'B')],
    renames: [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'a' },
    ],
    requests: [
      {
        rename_fields: [
          { name: 'a', new_name: 'a__scrapeform_tmp' },
          { name: 'b', new_name: 'b__scrapeform_tmp' },
        ],
      },
      {
        rename_fields: [
          { name: 'a__scrapeform_tmp', new_name: 'b' },
          { name: 'b__scrapeform_tmp', new_name: 'a' },
        ],
      },
    ],
    regenerates: false,
  },
  {
    name: 'a rename onto a removed name: the remove first',
    previous: [f('old', 'Old'), f('draft', 'Draft')],
    desired: [f('old', 'Draft')],
    renames: [{ from: 'draft', to: 'old' }],
    requests: [{ remove_fields: ['old'] }, { rename_fields: [{ name: 'draft', new_name: 'old' }] }],
    regenerates: false,
  },
  {
    name: 'adopted: names and parent-ness only, no modifies for unknown descriptions',
    previous: [f('title', ''), f('gone', '')],
    desired: [f('title', 'Title'), f('new', 'New')],
    known: false,
    requests: [{ remove_fields: ['gone'], add_fields: [f('new', 'New')] }],
    regenerates: true,
  },
  {
    // The service reports output types: a list of values (`type: array`, no fields under it) may come back as
    // `text` (the emulator) or as `array`; neither is a reason to regenerate an adopted parser (30,000 credits).
    name: 'adopted: a list of values is not a parent, whatever output type the service reports for it',
    previous: [f('crumbs', ''), f('tags', '', { type: 'array' }), f('title', '')],
    desired: [f('crumbs', 'Crumbs', { type: 'array' }), f('tags', 'Tags'), f('title', 'Title')],
    known: false,
    requests: [],
    regenerates: false,
  },
  {
    name: 'adopted: a field that gains fields under it changes parent-ness: modified with its new children',
    previous: [f('title', ''), f('reviews', '')],
    desired: [f('title', 'Title'), parent('reviews', 'Reviews'), f('reviews.author', 'Author')],
    known: false,
    requests: [
      { modify_fields: [parent('reviews', 'Reviews')], add_fields: [f('reviews.author', 'Author')] },
    ],
    regenerates: true,
  },
  {
    name: 'adopted: a parent declared as a list of values loses its fields under it, free, as with known descriptions',
    previous: [f('reviews', '', { type: 'array' }), f('reviews.author', '')],
    desired: [f('reviews', 'Reviews', { type: 'array' })],
    known: false,
    requests: [{ remove_fields: ['reviews.author'] }],
    regenerates: false,
  },
  {
    name: 'adopted: a parent declared as a plain field is modified',
    previous: [f('reviews', '', { type: 'array' }), f('reviews.author', '')],
    desired: [f('reviews', 'Reviews')],
    known: false,
    requests: [{ remove_fields: ['reviews.author'] }, { modify_fields: [f('reviews', 'Reviews')] }],
    regenerates: true,
  },
  {
    name: '--reassert sends every declared definition once as modify_fields',
    previous: [f('title', ''), parent('reviews', ''), f('reviews.author', '')],
    desired: [f('title', 'Title'), parent('reviews', 'Reviews'), f('reviews.author', 'Author')],
    known: false,
    reassert: true,
    requests: [
      { modify_fields: [f('title', 'Title'), parent('reviews', 'Reviews'), f('reviews.author', 'Author')] },
    ],
    regenerates: true,
  },
];

describe('diffFields', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const diff = diffFields(c.previous, c.desired, c.renames ?? [], {
      descriptionsKnown: c.known ?? true,
      reassert: c.reassert ?? false,
    });
    expect(diff.requests).toEqual(c.requests);
    expect(diff.regenerates).toBe(c.regenerates);
    // Applying the requests in order must give exactly the desired fields (names and definitions).
    const after = diff.requests.reduce<DesiredField[]>(
      (fields, ops) => applyFieldOperations(fields, ops),
      c.previous,
    );
    const byName = (fields: DesiredField[]) => [...fields].sort((a, b) => a.name.localeCompare(b.name));
    if (c.known !== false || c.reassert === true) expect(byName(after)).toEqual(byName(c.desired));
    else expect(after.map((x) => x.name).sort()).toEqual(c.desired.map((x) => x.name).sort());
  });

  it('labels what consumers notice: removes, renames and retypes break, adds do not', () => {
    const diff = diffFields(
      [f('a', 'A'), f('b', 'B', { type: 'string' }), f('c', 'C')],
      [f('b', 'B', { type: 'number' }), f('c2', 'C'), f('d', 'D')],
      [{ from: 'c', to: 'c2' }],
      { descriptionsKnown: true },
    );
    expect(diff.changes.map((c) => [c.change, c.field, c.breaking])).toEqual([
      ['modify', 'b', true],
      ['rename', 'c2', true],
      ['remove', 'a', true],
      ['add', 'd', false],
    ]);
  });

  it('only the last request adds or modifies, so a change regenerates once', () => {
    const diff = diffFields(
      [f('a', 'A'), f('b', 'B')],
      [f('b', 'A'), f('a', 'B'), f('z', 'Z')],
      [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'a' },
      ],
      { descriptionsKnown: true },
    );
    const withAdds = diff.requests.filter((r) => r.add_fields !== undefined || r.modify_fields !== undefined);
    expect(withAdds).toHaveLength(1);
    expect(diff.requests[diff.requests.length - 1]).toBe(withAdds[0]);
  });
});
