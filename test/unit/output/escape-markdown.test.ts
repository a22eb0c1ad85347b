import { describe, expect, it } from 'vitest';
import { createColors } from '../../../src/output/colors.js';
import { markdownText } from '../../../src/output/escape-markdown.js';
import { renderOutput } from '../../../src/output/render-output.js';
import type { DriftReport } from '../../../src/plan/drift.js';

/**
 * GitHub turns `#123`, `GH-123` and `owner/repo#123` in the text of a comment into links to issues and pull
 * requests, and records each as a cross-reference on the issue named ("mentioned this"), in this repository or
 * another: a value from a manifest or a service error must show those characters, never reference anything.
 */
describe('markdownText: issue references in a value', () => {
  // GitHub's reference forms, read from the rendered text: `#` then digits (alone or after `owner/repo`), or `GH-`
  // then digits after a non-word character.
  const REFERENCE = /#\d|(^|\W)GH-\d/i;

  it.each(['fixes #123', '#1', 'see GH-42 and gh-7', 'octo-org/octo-repo#9', 'issue (#5), #6.'])(
    '%j references nothing and shows the same text',
    (value) => {
      const shown = markdownText(value);
      expect(shown).not.toMatch(REFERENCE);
      // Only word joiners (which show as nothing) were added.
      expect(shown.replace(/\u2060/g, '')).toBe(value);
    },
  );

  it('leaves a `#` not followed by a digit, and words ending in gh, as they were', () => {
    expect(markdownText('colour #fff, high-5, sigh-1')).toBe('colour #fff, high-5, sigh-1');
  });

  it('still stops mentions', () => {
    expect(markdownText('@octo-org/admins')).toBe('@\u2060octo-org/admins');
  });
});

describe('drift --markdown: a service value naming issues', () => {
  // A project edited outside scrapeform, its new name (a live value) naming issues here and in another repository.
  const value = 'nightly (fixes #12, GH-13, octo-org/octo-repo#14)';
  const report: DriftReport = {
    format_version: 1,
    status: 'drift',
    summary: {
      objects: 1,
      drifted: 1,
      revert: { calls: 1, regenerations: 0, credits: 0 },
      accept: { calls: 0, regenerations: 0, credits: 0 },
    },
    drift: [
      {
        address: 'project.nightly',
        kind: 'Project',
        name: 'nightly',
        id: 7,
        drift: 'edited',
        message: `edited outside scrapeform: name ${value}`,
        changes: [{ change: 'edit', key: 'name', state: 'nightly', live: value }],
        revert: {
          calls: 1,
          regenerations: 0,
          credits: 0,
          requests: [{ method: 'PATCH', path: '/api/projects/7', body: { name: 'nightly' } }],
        },
        accept: { calls: 0, regenerations: 0, credits: 0, possible: true, placeholders: [] },
      },
    ],
    warnings: [`live name ${value}`],
  };

  it('shows the references as text in the table and the warnings, linking no issue', () => {
    const markdown = renderOutput('drift', 'markdown', report, createColors(false));
    // Outside code spans (the object's address), where GitHub reads references.
    const text = markdown.replace(/`[^`\n]*`/g, '');
    expect(text).not.toMatch(/#\d|(^|\W)GH-\d/i);
    expect(text.replace(/\u2060/g, '').split(value).length - 1).toBe(2);
  });
});
