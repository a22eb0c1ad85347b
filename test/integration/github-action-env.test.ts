import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_HEADER_RESERVE, MARKDOWN_LIMIT } from '../../src/output/render-plan-markdown.js';
import { readAction, runActionStep, runCommentScript } from '../helpers/github-action.js';

/** The Action's `env` and `var-files` inputs: every command gets them, and each environment has its own comment. */
describe('an environment of scrapeform.yaml in the Action', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-action-env-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  const chosen = { ENVIRONMENT: 'production', VAR_FILES: 'vars/common.yaml\n  vars/production.yaml\n' };
  const flags = [
    '--env',
    'production',
    '--var-file',
    'vars/common.yaml',
    '--var-file',
    'vars/production.yaml',
  ];

  it('are inputs passed to plan and to apply', async () => {
    const action = await readAction();
    expect(action.inputs.env).toEqual(expect.objectContaining({ default: '' }));
    expect(action.inputs['var-files']).toEqual(expect.objectContaining({ default: '' }));
    await writeFile(
      path.join(dir, 'fake.mjs'),
      `import { writeFileSync } from 'node:fs';
const i = process.argv.indexOf('--out');
if (i > 0) writeFileSync(process.argv[i + 1], JSON.stringify({ resource_changes: [] }));
process.exit(0);
`,
    );
    const plan = await runActionStep(dir, 'plan', {
      PATHS: '.',
      PLAN_FILE: 'scrapeform-plan.json',
      MAX_REGENERATIONS: '',
      OUT_DIR: path.join(dir, 'out'),
      ...chosen,
    });
    expect(plan.code).toBe(0);
    expect(plan.args.split('\n')).toEqual([
      'plan',
      '.',
      '--markdown',
      '--detailed-exitcode',
      '--out',
      'scrapeform-plan.json',
      ...flags,
      '',
    ]);
    const apply = await runActionStep(dir, 'scrapeform apply', {
      PATHS: '.',
      PLAN_FILE: 'scrapeform-plan.json',
      REQUIRE_SAVED_PLAN: 'true',
      ALLOW_DESTROY: 'false',
      ALLOW_ADOPT: 'false',
      MAX_REGENERATIONS: '',
      ...chosen,
    });
    expect(apply.args.split('\n')).toEqual([
      'apply',
      '.',
      '--plan',
      'scrapeform-plan.json',
      '--auto-approve',
      ...flags,
      '',
    ]);
  });

  it('two jobs that differ only by environment, or only by state, each keep a comment of their own', async () => {
    const md = { code: '2', md: 'plan\n' };
    const staging = await runCommentScript(dir, md, { ENVIRONMENT: 'staging' });
    const prod = await runCommentScript(dir, md, { ENVIRONMENT: 'production' }, staging.comments);
    expect(prod.updated).toEqual([]);
    expect(prod.comments.map((c) => c.body.split('\n').slice(0, 2))).toEqual([
      [
        '<!-- scrapeform-plan production:scrapers:env=staging -->',
        '**scrapeform** · workspace `production` · environment `staging` · directory `scrapers` · commit 0123456789abcdef0123456789abcdef01234567',
      ],
      [
        '<!-- scrapeform-plan production:scrapers:env=production -->',
        '**scrapeform** · workspace `production` · environment `production` · directory `scrapers` · commit 0123456789abcdef0123456789abcdef01234567',
      ],
    ]);
    // The state by a hash of where it is, without its password (never in the comment).
    const url = (password: string, db: string) => `postgres://ci:${password}@db.internal:5432/${db}`;
    const one = await runCommentScript(dir, md, { STATE: url('s3cret-one', 'eu') });
    const two = await runCommentScript(dir, md, { STATE: url('s3cret-two', 'us') }, one.comments);
    expect(two.comments).toHaveLength(2);
    const hash = createHash('sha256').update('postgres://ci@db.internal:5432/eu').digest('hex').slice(0, 16);
    expect(two.comments[0]?.body.split('\n')[0]).toBe(
      `<!-- scrapeform-plan production:scrapers:state=${hash} -->`,
    );
    expect(JSON.stringify(two.comments)).not.toMatch(/s3cret|db\.internal/);
    // The same state with another password is the same comment.
    const again = await runCommentScript(dir, md, { STATE: url('rotated', 'eu') }, two.comments);
    expect(again.updated).toEqual([two.comments[0]?.id]);
  });

  it('the longest header, with an environment, stays in the room plan --markdown leaves for it', async () => {
    const md = 'x'.repeat(MARKDOWN_LIMIT - COMMENT_HEADER_RESERVE);
    const { comments } = await runCommentScript(
      dir,
      { code: '2', md },
      {
        WORKSPACE: 'w'.repeat(500),
        DIRECTORY: 'd/'.repeat(500),
        ENVIRONMENT: 'e'.repeat(500),
        STATE: 'postgres://u:p@h/d',
        DESTRUCTIVE: 'true',
      },
    );
    const body = comments[0]?.body ?? '';
    expect(body.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(body.endsWith(md)).toBe(true);
  });

  it('a refused plan of the largest size, the longest refusal on top, is posted whole, never cut mid-block', async () => {
    // A plan filled to its limit ends with its own collapsed blocks: a cut inside one would fold the rest away.
    const md =
      `${'<details><summary>x</summary>\n\n```diff\n+ y\n```\n\n</details>\n\n'.repeat(2_000)}`.slice(
        0,
        MARKDOWN_LIMIT - COMMENT_HEADER_RESERVE,
      );
    const err = `error: the plan regenerates 400 parsers ${'parser.a '.repeat(400)}\n`.repeat(5);
    const { comments } = await runCommentScript(
      dir,
      { code: '3', md, err },
      {
        WORKSPACE: 'w'.repeat(500),
        DIRECTORY: 'd/'.repeat(500),
        ENVIRONMENT: 'e'.repeat(500),
        STATE: 'postgres://u:p@h/d',
        DESTRUCTIVE: 'true',
      },
    );
    const body = comments[0]?.body ?? '';
    expect(body.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(body).toContain('### scrapeform plan refused (exit 3)');
    expect(body.endsWith(md)).toBe(true);
  });
});
