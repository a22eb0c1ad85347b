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

describe('editManifestText writes a value set anew in the layout of the file', () => {
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
});
