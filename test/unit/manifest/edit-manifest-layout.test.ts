import { describe, expect, it } from 'vitest';
import { editManifestText } from '../../../src/manifest/edit-manifest.js';

/** What setting these top-level keys of the Project whose document starts on line 1 writes (`drift --accept`). */
const setting = (text: string, values: Record<string, unknown>): string | null => {
  const edited = editManifestText('m.yaml', text, [
    {
      kind: 'Project',
      line: 1,
      column: 1,
      edits: Object.entries(values).map(([key, value]) => ({ edit: 'set' as const, key, value })),
    },
  ]);
  expect(edited.refused).toEqual(new Map());
  return edited.text;
};

const pages = (...n: number[]): string[] =>
  n.map((i) => `https://books.example/catalogue/category/page-${i}.html`);

describe('editManifestText writes a value set anew in the layout of the file', () => {
  // A flow map set to its live value was written in the library's spacing (`{ a, [ b ] }`) whatever the file wrote,
  // and on one line however long: three page URLs made a line of 230 columns.
  it('writes a flow map set anew in its own spacing when it fits on its line', () => {
    const text =
      'kind: Project # nightly\nname: n\nprojectInput: {type: list, list: [a]} # pages\noutput_format: JSON\n';
    expect(setting(text, { projectInput: { type: 'list', list: ['a', 'b'] } })).toBe(
      text.replace('{type: list, list: [a]}', '{type: list, list: [a, b]}'),
    );
    const spaced = text.replace('{type: list, list: [a]}', '{ type: list, list: [ a ] }');
    expect(setting(spaced, { projectInput: { type: 'list', list: ['a', 'b'] } })).toBe(
      spaced.replace('[ a ]', '[ a, b ]'),
    );
  });

  it('writes a flow map set anew one item a line where one line would pass the line width', () => {
    const text =
      'kind: Project # nightly\nname: n\nprojectInput: {type: list, list: [a]} # pages\noutput_format: JSON\n';
    expect(setting(text, { projectInput: { type: 'list', list: pages(1, 2, 3) } })).toBe(
      text.replace(
        '{type: list, list: [a]}',
        [
          '{',
          '  type: list,',
          '  list:',
          '    [',
          '      https://books.example/catalogue/category/page-1.html,',
          '      https://books.example/catalogue/category/page-2.html,',
          '      https://books.example/catalogue/category/page-3.html',
          '    ]',
          '}',
        ].join('\n'),
      ),
    );
    // Nested as the file nests its block maps (by four here); what fits on a line stays on it.
    const four = `${text}webhookOutput:\n    url: https://h.example/\n`;
    expect(setting(four, { projectInput: { type: 'list', list: pages(1, 2) } })).toBe(
      four.replace(
        '{type: list, list: [a]}',
        [
          '{',
          '    type: list,',
          '    list:',
          '        [',
          '            https://books.example/catalogue/category/page-1.html,',
          '            https://books.example/catalogue/category/page-2.html',
          '        ]',
          '}',
        ].join('\n'),
      ),
    );
  });

  // Every comment of a list or map set anew went with it, the one on a line the new value writes again too.
  it('keeps the comment of each line the new value writes again, the last one included', () => {
    const text = [
      'kind: Project # nightly',
      'name: n',
      'projectInput:',
      '  type: list # always',
      '  list:',
      '    - https://a.example/ # why a',
      '    - https://b.example/ # why',
      'webhookOutput:',
      '  url: https://h.example/ # hook',
      '  # how it is sent',
      '  webhookEncoding: json # last',
      '',
    ].join('\n');
    expect(
      setting(text, {
        projectInput: {
          type: 'list',
          list: ['https://a.example/', 'https://b.example/', 'https://c.example/'],
        },
      }),
    ).toBe(
      text.replace(
        '    - https://b.example/ # why\n',
        '    - https://b.example/ # why\n    - https://c.example/\n',
      ),
    );
    // A line gone takes its comment with it; one whose value changed too (its comment spoke of the old value).
    expect(
      setting(text, { projectInput: { type: 'list', list: ['https://b.example/', 'https://c.example/'] } }),
    ).toBe(
      text.replace(
        '    - https://a.example/ # why a\n    - https://b.example/ # why\n',
        '    - https://b.example/ # why\n    - https://c.example/\n',
      ),
    );
    expect(setting(text, { webhookOutput: { url: 'https://i.example/', webhookEncoding: 'json' } })).toBe(
      text.replace('https://h.example/ # hook', 'https://i.example/'),
    );
  });

  // Checked, not changed: where no block shows how the file nests, a block added is nested by two (the library's
  // step, as `fmt` writes), its list items indented under their key, not by four.
  it('nests a block added to a file written only in flow style by two', () => {
    const text = 'kind: Project\nname: n\nprojectInput: {type: list, list: [a]} # c\n\n# end\n';
    expect(setting(text, { webhookOutput: { url: 'u', headers: { a: 'b' }, tags: ['t'] } })).toBe(
      text.replace('# c\n', '# c\nwebhookOutput:\n  url: u\n  headers:\n    a: b\n  tags:\n    - t\n'),
    );
  });

  // A list written anew in a file indented by four with its items at the key's column had them two columns in (the
  // nearest the library's indentSeq option writes), and one with them two in had them four in.
  it("writes a list's items as far from their key as the file's lists have them, whatever its step", () => {
    const text =
      'kind: Project\nname: n\nprojectInput:\n    type: list\n    list:\n    - https://a.example/\nwebhookOutput:\n    url: https://h.example/\n';
    expect(
      setting(text, { projectInput: { type: 'list', list: ['https://b.example/', 'https://c.example/'] } }),
    ).toBe(
      text.replace('    - https://a.example/\n', '    - https://b.example/\n    - https://c.example/\n'),
    );
    expect(
      setting(text, {
        webhookOutput: { url: 'https://h.example/', headers: { tags: ['a'] }, tags: ['a', 'b'] },
      }),
    ).toBe(`${text}    headers:\n        tags:\n        - a\n    tags:\n    - a\n    - b\n`);
    // A string of several lines in a list added: its lines move with the item, its blank line kept.
    expect(setting(text, { notificationConfig: { notes: ['one\n\ntwo\n'] } })).toBe(
      `${text}notificationConfig:\n    notes:\n    - |\n      one\n\n      two\n`,
    );
    const two = text.replace('    - https://a.example/', '      - https://a.example/');
    expect(
      setting(two, { projectInput: { type: 'list', list: ['https://b.example/', 'https://c.example/'] } }),
    ).toBe(
      two.replace('      - https://a.example/\n', '      - https://b.example/\n      - https://c.example/\n'),
    );
  });

  // A value read as a scalar (`webhookOutput: null`) set to a map or list wrote the whole document in the library's
  // layout: a file indented by four came back by two, `[a]` as `[ a ]`, and the comment on the key's line was lost.
  it('writes a map or list that replaces a scalar under its key, and leaves every other line as written', () => {
    const text =
      'kind: Project # nightly\nname: n\nprojectInput:\n    type: list\n    list: [a]   # pages\nwebhookOutput: null # none yet\noutput_format: JSON\n';
    const hook = { url: 'https://h.example/', webhookEncoding: 'json' };
    expect(setting(text, { webhookOutput: hook })).toBe(
      text.replace(
        'webhookOutput: null # none yet\n',
        'webhookOutput: # none yet\n    url: https://h.example/\n    webhookEncoding: json\n',
      ),
    );
    const bare = text.replace(' # none yet', '');
    expect(setting(bare, { webhookOutput: hook })).toBe(
      bare.replace(
        'webhookOutput: null\n',
        'webhookOutput:\n    url: https://h.example/\n    webhookEncoding: json\n',
      ),
    );
    // A list's items as far from the key as the file's lists have them; the last line of a file with no line end.
    const lists =
      'kind: Project\nname: n\nprojectInput:\n  type: list\n  list:\n  - https://a.example/\napiParams: ~';
    expect(setting(lists, { apiParams: ['x', 'y'] })).toBe(
      lists.replace('apiParams: ~', 'apiParams:\n- x\n- y\n'),
    );
    // An empty one, and one inside a flow map, in flow style in the scalar's place, spaced as the file's.
    expect(setting(text, { webhookOutput: {} })).toBe(text.replace('null # none yet', '{} # none yet'));
    const flow = 'kind: Project\nname: n\nprojectInput: {type: list, list: null} # pages\n';
    expect(setting(flow, { projectInput: { type: 'list', list: ['a', 'b'] } })).toBe(
      flow.replace('list: null', 'list: [a, b]'),
    );
  });
});
