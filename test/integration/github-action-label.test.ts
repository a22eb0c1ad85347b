import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAction, runCommentScript } from '../helpers/github-action.js';
import type { Comment, LabelSetting } from '../helpers/github-action.js';

const LABEL = 'scrapeform-destructive';

/** The Action's `destructive-label`, run as its pull-request step runs it, against a fake GitHub. */
describe('the destructive label', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-label-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  const plan = (
    code: string,
    env: Record<string, string>,
    existing: Comment[] = [],
    setting: LabelSetting = {},
  ) =>
    runCommentScript(
      dir,
      { code, md: 'plan\n', err: 'error: boom\n' },
      { DESTRUCTIVE_LABEL: LABEL, ...env },
      existing,
      undefined,
      setting,
    );

  it('is applied with comment: false too (the step runs for either), posting no comment', async () => {
    const action = await readAction();
    const step = action.runs.steps.find((s) => s.uses?.startsWith('actions/github-script@'));
    expect(step?.if).toBe(
      "steps.mode.outputs.mode == 'plan' && github.event_name == 'pull_request' && (inputs.comment == 'true' || inputs.destructive-label != '')",
    );
    expect(step?.env?.COMMENT).toBe('${{ inputs.comment }}');
    const { comments, labels } = await plan('2', { COMMENT: 'false', DESTRUCTIVE: 'true' });
    expect(comments).toEqual([]);
    expect(labels).toEqual([LABEL]);
    // Without comments there is no record of the other plans on the pull request: never removed.
    const after = await plan('2', { COMMENT: 'false' }, [], { present: [LABEL] });
    expect(after.labels).toEqual([LABEL]);
  });

  it('a non-destructive staging plan keeps the label a destructive production plan added', async () => {
    const prod = await plan('2', { WORKSPACE: 'production', DESTRUCTIVE: 'true' });
    expect(prod.labels).toEqual([LABEL]);
    expect(prod.comments[0]?.body.split('\n').slice(0, 2)).toEqual([
      '<!-- scrapeform-plan production:scrapers -->',
      '<!-- scrapeform-destructive -->',
    ]);
    const staging = await plan('2', { WORKSPACE: 'staging' }, prod.comments, { present: prod.labels });
    expect(staging.labels).toEqual([LABEL]);
    // Once production's plan is not destructive either, the label goes.
    const fixed = await plan('2', { WORKSPACE: 'production' }, staging.comments, { present: staging.labels });
    expect(fixed.labels).toEqual([]);
    expect(fixed.comments.map((c) => c.body.split('\n')[1])).not.toContain('<!-- scrapeform-destructive -->');
  });

  it('a failed plan leaves the label, and its comment keeps the destructive mark of the last plan', async () => {
    const prod = await plan('2', { DESTRUCTIVE: 'true' });
    const failed = await plan('1', { DESTRUCTIVE: 'false' }, prod.comments, { present: prod.labels });
    expect(failed.labels).toEqual([LABEL]);
    expect(failed.comments[0]?.body).toMatch(
      /^<!-- scrapeform-plan production:scrapers -->\n<!-- scrapeform-destructive -->\n[^]*scrapeform plan failed \(exit 1\)/,
    );
    const again = await plan('1', { COMMENT: 'false' }, [], { present: [LABEL] });
    expect(again.labels).toEqual([LABEL]);
  });

  it('a label GitHub refuses (403: pull-requests: write cannot create one) is a warning after the comment', async () => {
    const { comments, labels, warnings } = await plan('2', { DESTRUCTIVE: 'true' }, [], { addStatus: 403 });
    expect(comments).toHaveLength(1);
    expect(labels).toEqual([]);
    expect(warnings).toEqual([
      'could not add the label "scrapeform-destructive" (Resource not accessible by integration): create it in the repository first (a token with pull-requests: write can add a label, not create one)',
    ]);
  });
});
