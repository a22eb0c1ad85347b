import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MARKDOWN_LIMIT, renderPlanMarkdown } from '../../src/output/render-plan-markdown.js';
import { buildPlan } from '../../src/plan/build-plan.js';
import type { LiveSnapshot } from '../../src/plan/model.js';
import type { State } from '../../src/state/model.js';
import { runScrapeform } from '../helpers/cli.js';
import {
  ACTIONS_BOT,
  PR_AUTHOR,
  readAction,
  runActionStep,
  runCommentScript,
} from '../helpers/github-action.js';
import type { Comment, Step, User, Viewer } from '../helpers/github-action.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const WORKFLOW = path.join(ROOT, 'examples/github-actions/.github/workflows/scrapeform.yml');
const run = promisify(execFile);

/** action-validator (the Rust validator compiled to WebAssembly, installed from npm) on a file. */
async function actionValidator(file: string): Promise<{ code: number; output: string }> {
  const cli = createRequire(import.meta.url).resolve('@action-validator/cli/cli.mjs');
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, file]);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

/**
 * GITHUB_OUTPUT read as the runner reads it: `name=value`, or `name<<DELIMITER`, the lines up to the first line that is
 * the delimiter, then that line. A name written twice keeps its last value.
 */
function readOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc?.[1] !== undefined && heredoc[2] !== undefined) {
      const end = lines.indexOf(heredoc[2], i + 1);
      if (end < 0) throw new Error(`no end of ${heredoc[1]}`);
      outputs[heredoc[1]] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) {
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return outputs;
}

describe('action.yml and the example workflow', () => {
  it('pass action-validator, which also catches a broken action (the check of the check)', async () => {
    expect(await actionValidator(path.join(ROOT, 'action.yml'))).toMatchObject({ code: 0 });
    expect(await actionValidator(WORKFLOW)).toMatchObject({ code: 0 });
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-action-'));
    await writeFile(
      path.join(dir, 'action.yml'),
      'name: x\ndescription: y\nruns:\n  using: composite\n  steps:\n    - runs: echo\n',
    );
    const broken = await actionValidator(path.join(dir, 'action.yml'));
    expect(broken.code).not.toBe(0);
    await rm(dir, { recursive: true });
  });

  it('calls only existing commands and flags of the published package, and never builds it', async () => {
    const action = await readAction();
    expect(action.runs.using).toBe('composite');
    const scripts = action.runs.steps.map((s) => s.run ?? '').join('\n');
    expect(scripts).not.toMatch(/npm ci|tsc|npm run build/);
    expect(scripts).toContain('npm install --global --no-audit --no-fund "scrapeform@$version"');
    const calls = [...scripts.matchAll(/^\s*scrapeform (plan|apply|version)\b([^\n]*)/gm)];
    expect(calls.map((c) => c[1])).toEqual(['version', 'plan', 'apply', 'apply']);
    for (const call of calls) {
      const help = await runScrapeform([call[1] as string, '--help']);
      for (const flag of (call[2] ?? '').match(/--[a-z-]+/g) ?? []) expect(help.stdout).toContain(flag);
    }
    expect(Object.keys(action.outputs).sort()).toEqual([
      'adopts',
      'destructive',
      'has-changes',
      'mode',
      'plan-file',
      'plan-markdown',
    ]);
  });

  it('the example workflow: the key from a secret, state in PostgreSQL, the reviewed plan applied on merge', async () => {
    const workflow = parse(await readFile(WORKFLOW, 'utf8')) as {
      jobs: Record<string, { steps: Step[] }>;
    };
    const { plan, apply } = workflow.jobs;
    const action = (job: { steps: Step[] } | undefined): Step | undefined =>
      job?.steps.find((s) => s.uses?.includes('/scrapeform@'));
    expect(action(plan)?.env?.SCRAPERAPI_API_KEY).toBe('${{ secrets.SCRAPERAPI_API_KEY }}');
    expect(action(plan)?.with?.state).toBe('${{ secrets.SCRAPEFORM_STATE_URL }}');
    expect(action(plan)?.with?.mode).toBe('plan');
    const upload = plan?.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.with?.path).toBe('${{ steps.scrapeform.outputs.plan-file }}');
    const download = apply?.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'));
    expect(download?.with?.name).toBe(upload?.with?.name);
    expect(action(apply)?.with?.mode).toBe('apply');
    expect(action(apply)?.with?.['plan-file']).toBe('${{ runner.temp }}/reviewed-plan/scrapeform-plan.json');
  });
});

/** The steps of the action run as bash with GitHub's runner conventions, scrapeform replaced by a stand-in. */
describe('the action steps, run', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-action-run-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  const runStep = (id: string, env: Record<string, string>) => runActionStep(dir, id, env);

  it('an unknown mode or a flag that is not true/false fails the step, naming it', async () => {
    const bad = await runStep('mode', { MODE: 'destroy', BOOLEANS: 'comment=true' });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('::error title=scrapeform::mode must be plan, apply or auto, not "destroy"');
    const flag = await runStep('mode', { MODE: 'plan', BOOLEANS: 'allow-destroy=yes comment=true' });
    expect(flag.code).toBe(1);
    expect(flag.stdout).toContain('allow-destroy must be true or false, not "yes"');
    const auto = await runStep('mode', {
      MODE: 'auto',
      BOOLEANS: 'comment=true',
      GITHUB_EVENT_NAME: 'push',
      GITHUB_REF: 'refs/heads/main',
      DEFAULT_BRANCH: 'main',
    });
    expect(auto.output).toBe('mode=apply\n');
  });

  it('plan: paths one per line, the saved plan written, destructive and adoption outputs set', async () => {
    await writeFile(
      path.join(dir, 'fake.mjs'),
      `import { writeFileSync } from 'node:fs';
const out = process.argv[process.argv.indexOf('--out') + 1];
writeFileSync(out, JSON.stringify({ resource_changes: [
  { destructive: true, reasons: ['no manifest declares it any more'] },
  { destructive: false, reasons: ['adopted: the live parser p-1 has this name'] },
] }));
console.log('### scrapeform plan');
process.exit(2);
`,
    );
    const result = await runStep('plan', {
      PATHS: 'parsers\n  more parsers  \n\nprojects\n',
      PLAN_FILE: 'scrapeform-plan.json',
      MAX_REGENERATIONS: '10',
      OUT_DIR: path.join(dir, 'out'),
    });
    expect(result.code).toBe(0);
    expect(result.args.split('\n')).toEqual([
      'plan',
      'parsers',
      'more parsers',
      'projects',
      '--markdown',
      '--detailed-exitcode',
      '--out',
      'scrapeform-plan.json',
      '--max-regenerations',
      '10',
      '',
    ]);
    expect(result.output).toContain('has-changes=true\ndestructive=true\nadopts=true\n');
    expect(await readFile(path.join(dir, 'out/plan.code'), 'utf8')).toBe('2\n');
  });

  it('a failed plan is recorded for the comment, and the last step fails with its exit code', async () => {
    await writeFile(
      path.join(dir, 'fake.mjs'),
      "console.error('error: manifests/a.yaml:3:1: urls: needs at least 1 example URL'); process.exit(1);\n",
    );
    const result = await runStep('plan', {
      PATHS: '.',
      PLAN_FILE: 'scrapeform-plan.json',
      MAX_REGENERATIONS: '',
      OUT_DIR: path.join(dir, 'out'),
    });
    expect(result.code).toBe(0);
    expect(result.output).toContain('has-changes=false\ndestructive=false\nadopts=false\n');
    expect(await readFile(path.join(dir, 'out/plan.err'), 'utf8')).toContain('needs at least 1 example URL');
    const fail = await runStep('Fail when the plan failed', { OUT_DIR: path.join(dir, 'out') });
    expect(fail.code).toBe(1);
  });

  it('a refused plan’s error in the job summary: its fence is longer than any run of backticks in it, never closed early', async () => {
    // A service error or a manifest value quoted in the refusal: a line of backticks, then Markdown that must stay text.
    const error =
      'error: refused\n````\n![x](https://example.test/x.png) <img src=x>\n`````` inline ``` run\n';
    await writeFile(
      path.join(dir, 'fake.mjs'),
      `import { writeFileSync } from 'node:fs';
const out = process.argv[process.argv.indexOf('--out') + 1];
writeFileSync(out, JSON.stringify({ resource_changes: [] }));
console.log('### scrapeform plan');
process.stderr.write(${JSON.stringify(error)});
process.exit(3);
`,
    );
    await rm(path.join(dir, 'summary'), { force: true });
    const result = await runStep('plan', {
      PATHS: '.',
      PLAN_FILE: 'scrapeform-plan.json',
      MAX_REGENERATIONS: '1',
      OUT_DIR: path.join(dir, 'out'),
    });
    expect(result.code).toBe(0);
    const summary = await readFile(path.join(dir, 'summary'), 'utf8');
    // The longest run in the error is 6 backticks: a fence of 7 opens and closes the block, the error whole inside.
    expect(summary).toBe(
      `### scrapeform plan refused (exit 3)\n\nNothing was applied. The plan below was refused:\n\n${'`'.repeat(7)}text\n${error}\n${'`'.repeat(7)}\n\n### scrapeform plan\n`,
    );
  });

  // 5,000 lines of retries and warnings, then the error (a bidirectional override, an escape sequence) and its hint.
  const longError = [
    ...Array.from({ length: 4998 }, (_, i) => `warning: retry ${String(i + 1).padStart(4, '0')}`),
    '\u001b[31merror:\u001b[0m refused: manifests/a\u202eyaml.b regenerates 2 parsers',
    'hint: raise max-regenerations',
    '',
  ].join('\n');
  // As the comment shows it: the last lines within 600 characters (20,000 for a failure), from a whole line, each
  // control and override written as an escape.
  const shownError = (first: number) =>
    [
      '…',
      ...Array.from(
        { length: 4998 - first + 1 },
        (_, i) => `warning: retry ${String(first + i).padStart(4, '0')}`,
      ),
      '\\u001b[31merror:\\u001b[0m refused: manifests/a\\u202eyaml.b regenerates 2 parsers',
      'hint: raise max-regenerations',
      '',
    ].join('\n');

  it('a refused plan’s error in the job summary is the comment’s: escaped, and only its last lines within the bound', async () => {
    await writeFile(
      path.join(dir, 'fake.mjs'),
      `import { writeFileSync } from 'node:fs';
const out = process.argv[process.argv.indexOf('--out') + 1];
writeFileSync(out, JSON.stringify({ resource_changes: [] }));
console.log('### scrapeform plan');
process.stderr.write(${JSON.stringify(longError)});
process.exitCode = 3; // not exit(): stderr to a pipe is written after it, and exit() would cut it
`,
    );
    await rm(path.join(dir, 'summary'), { force: true });
    const result = await runStep('plan', {
      PATHS: '.',
      PLAN_FILE: 'scrapeform-plan.json',
      MAX_REGENERATIONS: '1',
      OUT_DIR: path.join(dir, 'out'),
    });
    expect(result.code).toBe(0);
    const summary = await readFile(path.join(dir, 'summary'), 'utf8');
    expect(summary).toBe(
      `### scrapeform plan refused (exit 3)\n\nNothing was applied. The plan below was refused:\n\n\`\`\`text\n${shownError(4975)}\n\`\`\`\n\n### scrapeform plan\n`,
    );
    const { comments } = await runCommentScript(
      dir,
      { code: '3', md: '### scrapeform plan\n', err: longError },
      {},
    );
    expect(comments[0]?.body.split('\n\n').slice(1).join('\n\n')).toBe(summary);
  });

  it('a failed plan’s error is in the job summary too (a push has no comment): escaped and bounded as the comment’s', async () => {
    await writeFile(
      path.join(dir, 'fake.mjs'),
      `process.stderr.write(${JSON.stringify(longError)}); process.exitCode = 1;\n`,
    );
    await rm(path.join(dir, 'summary'), { force: true });
    const result = await runStep('plan', {
      PATHS: '.',
      PLAN_FILE: 'scrapeform-plan.json',
      MAX_REGENERATIONS: '',
      OUT_DIR: path.join(dir, 'out'),
    });
    expect(result.code).toBe(0);
    const summary = await readFile(path.join(dir, 'summary'), 'utf8').catch(() => '');
    expect(summary).toBe(
      `### scrapeform plan failed (exit 1)\n\nNothing was applied. The error:\n\n\`\`\`text\n${shownError(4802).replace('…\n', '')}\n\`\`\`\n`,
    );
    const { comments } = await runCommentScript(dir, { code: '1', err: longError }, {});
    expect(comments[0]?.body.split('\n\n').slice(1).join('\n\n')).toBe(summary);
  });

  it('plan-markdown: its delimiter is random and no line of the plan, whatever date prints (BSD date has no %N)', async () => {
    // A plan whose Markdown has the line a macOS runner's delimiter would be that second, then an output of its own.
    await writeFile(
      path.join(dir, 'fake.mjs'),
      `import { writeFileSync } from 'node:fs';
const out = process.argv[process.argv.indexOf('--out') + 1];
writeFileSync(out, JSON.stringify({ resource_changes: [{ destructive: true, reasons: [] }] }));
console.log('### scrapeform plan\\nscrapeform_1700000000N\\ndestructive=false\\nscrapeform_1700000000N');
process.exit(2);
`,
    );
    // date as BSD's prints it: %N unknown, written as N.
    await writeFile(path.join(dir, 'bin/date'), '#!/usr/bin/env bash\necho 1700000000N\n', { mode: 0o755 });
    try {
      const result = await runStep('plan', {
        PATHS: '.',
        PLAN_FILE: 'scrapeform-plan.json',
        MAX_REGENERATIONS: '',
        OUT_DIR: path.join(dir, 'out'),
      });
      expect(result.code).toBe(0);
      expect(readOutputs(result.output)).toEqual({
        'has-changes': 'true',
        destructive: 'true',
        adopts: 'false',
        'plan-file': path.join(dir, 'scrapeform-plan.json'),
        'plan-markdown':
          '### scrapeform plan\nscrapeform_1700000000N\ndestructive=false\nscrapeform_1700000000N',
      });
      expect(result.output).toMatch(/^plan-markdown<<scrapeform_[0-9a-f]{32}$/m);
    } finally {
      await rm(path.join(dir, 'bin/date'), { force: true });
    }
  });

  it('plan-markdown: a delimiter drawn that is a line of the plan is drawn again', async () => {
    await writeFile(
      path.join(dir, 'fake.mjs'),
      `import { writeFileSync } from 'node:fs';
const out = process.argv[process.argv.indexOf('--out') + 1];
writeFileSync(out, JSON.stringify({ resource_changes: [] }));
console.log('### scrapeform plan\\nscrapeform_${'aa'.repeat(16)}\\nhas-changes=false');
process.exit(2);
`,
    );
    // od that draws aa... first, then bb...: the first is a line of the plan.
    await writeFile(
      path.join(dir, 'bin/od'),
      `#!/usr/bin/env bash\nif [ -e "${dir}/od-drawn" ]; then echo " ${'bb '.repeat(16)}"; else touch "${dir}/od-drawn"; echo " ${'aa '.repeat(16)}"; fi\n`,
      { mode: 0o755 },
    );
    try {
      const result = await runStep('plan', {
        PATHS: '.',
        PLAN_FILE: 'scrapeform-plan.json',
        MAX_REGENERATIONS: '',
        OUT_DIR: path.join(dir, 'out'),
      });
      expect(result.code).toBe(0);
      expect(result.output).toContain(`plan-markdown<<scrapeform_${'bb'.repeat(16)}\n`);
      expect(readOutputs(result.output)).toMatchObject({
        'has-changes': 'true',
        'plan-markdown': `### scrapeform plan\nscrapeform_${'aa'.repeat(16)}\nhas-changes=false`,
      });
    } finally {
      await rm(path.join(dir, 'bin/od'), { force: true });
      await rm(path.join(dir, 'od-drawn'), { force: true });
    }
  });

  it('apply: the saved plan exactly; without it refused, or planned and applied at once as the fallback', async () => {
    await writeFile(path.join(dir, 'fake.mjs'), 'process.exit(0);\n');
    await writeFile(path.join(dir, 'reviewed.json'), '{}');
    const env = {
      PATHS: 'scrapers',
      REQUIRE_SAVED_PLAN: 'true',
      ALLOW_DESTROY: 'false',
      ALLOW_ADOPT: 'true',
      MAX_REGENERATIONS: '',
    };
    const reviewed = await runStep('scrapeform apply', { ...env, PLAN_FILE: 'reviewed.json' });
    expect(reviewed.args.split('\n')).toEqual([
      'apply',
      'scrapers',
      '--plan',
      'reviewed.json',
      '--auto-approve',
      '--allow-adopt',
      '',
    ]);
    await rm(path.join(dir, 'args'));
    const refused = await runStep('scrapeform apply', { ...env, PLAN_FILE: 'missing.json' });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('::error title=scrapeform::no saved plan at missing.json');
    expect(refused.args).toBe('');
    const fallback = await runStep('scrapeform apply', {
      ...env,
      PLAN_FILE: 'missing.json',
      REQUIRE_SAVED_PLAN: 'false',
    });
    expect(fallback.args.split('\n')).toEqual(['apply', 'scrapers', '--auto-approve', '--allow-adopt', '']);
  });
});

/** The comment step's script, run as actions/github-script runs it, against a fake GitHub. */
describe('the pull-request comment', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-comment-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  const comment = (
    files: { code: string; md?: string; err?: string },
    env: Record<string, string>,
    existing: Comment[] = [],
    token: { user: User; viewer?: Viewer } = { user: ACTIONS_BOT },
  ) => runCommentScript(dir, files, env, existing, token);

  it('names the workspace, directory and commit, and updates only its own workspace and directory', async () => {
    const other: Comment = { id: 1, body: '<!-- scrapeform-plan staging:scrapers -->\nstaging plan' };
    const first = await comment({ code: '2', md: '### scrapeform plan\n' }, {}, [other]);
    expect(first.comments).toHaveLength(2);
    const mine = first.comments[1];
    expect(mine?.body).toBe(
      '<!-- scrapeform-plan production:scrapers -->\n**scrapeform** · workspace `production` · directory `scrapers` · commit 0123456789abcdef0123456789abcdef01234567\n\n### scrapeform plan\n',
    );
    const again = await comment({ code: '0', md: 'No changes.\n' }, {}, first.comments);
    expect(again.comments).toHaveLength(2);
    expect(again.comments[0]?.body).toBe(other.body);
    expect(again.comments[1]?.body).toContain('\n\nNo changes.\n');
  });

  it('never takes over a comment someone else wrote with the marker: the plan goes in a comment of its own', async () => {
    const marker = '<!-- scrapeform-plan production:scrapers -->';
    const planted: Comment = {
      id: 5,
      user: PR_AUTHOR,
      body: `${marker}\n**scrapeform** · workspace \`production\` · directory \`scrapers\`\n\nNo changes.\n`,
    };
    // Another app's bot is a Bot too: the type alone does not make a comment ours.
    const otherBot: Comment = {
      id: 6,
      user: { login: 'someone-else[bot]', id: 777, type: 'Bot' },
      body: `${marker}\nNo changes.\n`,
    };
    const first = await comment({ code: '2', md: '### destructive plan\n' }, {}, [planted, otherBot]);
    expect(first.updated).toEqual([]);
    expect(first.comments.slice(0, 2)).toEqual([planted, otherBot]);
    expect(first.comments).toHaveLength(3);
    expect(first.comments[2]?.user).toEqual(ACTIONS_BOT);
    expect(first.comments[2]?.body).toMatch(
      /^<!-- scrapeform-plan production:scrapers -->\n[^]*### destructive plan\n$/,
    );
    // The next push updates the comment the step wrote, still not theirs.
    const again = await comment({ code: '0', md: 'No changes.\n' }, {}, first.comments);
    expect(again.updated).toEqual([first.comments[2]?.id]);
    expect(again.comments.slice(0, 2)).toEqual([planted, otherBot]);
    expect(again.comments[2]?.body).toContain('\n\nNo changes.\n');
  });

  it('with a personal token, its user’s own comment is updated; when the identity cannot be read, a new comment', async () => {
    const robot: User = { login: 'release-robot', id: 4242, type: 'User' };
    const mine: Comment = {
      id: 9,
      user: robot,
      body: '<!-- scrapeform-plan production:scrapers -->\nold plan\n',
    };
    const theirs: Comment = { ...mine, id: 8, user: PR_AUTHOR };
    const pat = await comment({ code: '2', md: 'new plan\n' }, {}, [theirs, mine], { user: robot });
    expect(pat.updated).toEqual([9]);
    expect(pat.comments).toHaveLength(2);
    expect(pat.comments[0]).toEqual(theirs);
    expect(pat.comments[1]?.body).toContain('\n\nnew plan\n');
    const unknown = await comment({ code: '2', md: 'new plan\n' }, {}, [theirs, mine], {
      user: robot,
      viewer: new Error('Resource not accessible by integration'),
    });
    expect(unknown.updated).toEqual([]);
    expect(unknown.comments).toHaveLength(3);
    expect(unknown.warnings).toEqual([
      'could not read who the token posts as (Resource not accessible by integration): posting a new comment instead of updating one',
    ]);
  });

  it('long directory names sharing their first 300 marker characters still get a comment each', async () => {
    // 41 and 45 characters, 33 in common; each non-ASCII character is 9 in the percent-encoded marker.
    const staging = 'スクレイパー/チーム別/書籍チーム/商品ページ解析/パーサー定義ファイル/ステージング環境';
    const production = 'スクレイパー/チーム別/書籍チーム/商品ページ解析/パーサー定義ファイル/本番環境';
    const first = await comment(
      { code: '2', md: 'staging plan\n' },
      { WORKSPACE: 'default', DIRECTORY: staging },
    );
    const second = await comment(
      { code: '2', md: 'production plan\n' },
      { WORKSPACE: 'default', DIRECTORY: production },
      first.comments,
    );
    expect(second.updated).toEqual([]);
    expect(second.comments).toHaveLength(2);
    const markers = second.comments.map((c) => c.body.split('\n')[0] ?? '');
    expect(markers[0]).not.toBe(markers[1]);
    for (const [i, directory] of [staging, production].entries()) {
      const key = `default:${encodeURIComponent(directory)}`;
      expect(key.length).toBeGreaterThan(300);
      const hash = createHash('sha256').update(key).digest('hex');
      // Readable as far as it goes (never half a %XX escape), then the hash of the whole key, 300 at most.
      const readable = key.slice(0, 228).replace(/%[0-9A-F]?$/, '');
      expect(markers[i]).toBe(`<!-- scrapeform-plan ${readable}…sha256:${hash} -->`);
      expect((markers[i] ?? '').length).toBeLessThanOrEqual('<!-- scrapeform-plan  -->'.length + 300);
    }
    expect(second.comments.map((c) => c.body.endsWith('staging plan\n'))).toEqual([true, false]);
    // Each directory's next run finds its own comment.
    const third = await comment(
      { code: '0', md: 'No changes.\n' },
      { WORKSPACE: 'default', DIRECTORY: staging },
      second.comments,
    );
    expect(third.updated).toEqual([second.comments[0]?.id]);
    expect(third.comments[1]?.body).toMatch(/production plan\n$/);
  });

  it('a marker of up to 300 characters is the key itself, as before, so existing comments are still found', async () => {
    const directory = 'd'.repeat(300 - 'production:'.length);
    const marker = `<!-- scrapeform-plan production:${directory} -->`;
    const existing: Comment = { id: 3, user: ACTIONS_BOT, body: `${marker}\nold plan\n` };
    const { comments, updated } = await comment({ code: '2', md: 'new plan\n' }, { DIRECTORY: directory }, [
      existing,
    ]);
    expect(updated).toEqual([3]);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body.startsWith(`${marker}\n`)).toBe(true);
    expect(comments[0]?.body).toMatch(/new plan\n$/);
  });

  it('the header shows no bidirectional control or zero-width character from a workspace or directory name raw', async () => {
    const { comments } = await comment(
      { code: '2', md: 'plan\n' },
      { WORKSPACE: 'prod\u202etset', DIRECTORY: 'a\u2066b\u2069\u2028c\u0085\u200b' },
    );
    expect(comments[0]?.body.split('\n')[1]).toBe(
      '**scrapeform** · workspace `prod?tset` · directory `a?b??c??` · commit 0123456789abcdef0123456789abcdef01234567',
    );
  });

  it('a failed plan posts the error instead of nothing', async () => {
    const { comments } = await comment(
      { code: '1', err: 'error: a.yaml:3:1: urls: needs at least 1 example URL\n```\n' },
      {},
    );
    expect(comments[0]?.body).toContain(
      '### scrapeform plan failed (exit 1)\n\nNothing was applied. The error:\n\n````text\nerror: a.yaml:3:1: urls: needs at least 1 example URL\n```\n\n````\n',
    );
  });

  it('a failed plan’s error shows no bidirectional control or escape sequence raw: each is written as an escape', async () => {
    const { comments } = await comment(
      {
        code: '1',
        err: 'error: manifests/a\u202eyaml.b:2:1: name "x\u2066y\u2069\ufeff"\n\u001b[31mred\u001b[0m\tend\n',
      },
      {},
    );
    expect(comments[0]?.body).toContain(
      '```text\nerror: manifests/a\\u202eyaml.b:2:1: name "x\\u2066y\\u2069\\ufeff"\n\\u001b[31mred\\u001b[0m\tend\n\n```\n',
    );
  });

  it('a destructive plan gets the label', async () => {
    const { labels } = await comment(
      { code: '2', md: 'plan\n' },
      { DESTRUCTIVE: 'true', DESTRUCTIVE_LABEL: 'scrapeform-destructive' },
    );
    expect(labels).toEqual(['scrapeform-destructive']);
    const removed = await comment(
      { code: '2', md: 'plan\n' },
      { DESTRUCTIVE_LABEL: 'scrapeform-destructive' },
    );
    expect(removed.labels).toEqual([]);
  });

  it('260 deletes, with the longest header: the whole comment fits GitHub’s 65,536 characters', async () => {
    const state: State = { format_version: 1, serial: 1, lineage: 'l', resources: {} };
    const live: LiveSnapshot = { parsers: [], details: {}, projects: [] };
    for (let i = 0; i < 260; i++) {
      const name = `catalogue-product-page-parser-number-${String(i).padStart(3, '0')}`;
      const id = `4f3c2b1a-${String(i).padStart(4, '0')}-4e5f-8a9b-0c1d2e3f4a5b`;
      state.resources[`parser.${name}`] = {
        kind: 'Parser',
        id,
        name,
        version: 3,
        definition: { urls: ['https://books.example/a.html'], scraperParams: {}, fields: [] },
        descriptionsKnown: true,
      };
      live.parsers.push({ id, name, status: 'FINISHED', error: null, generated_at: null, version: 3 });
    }
    const md = renderPlanMarkdown(buildPlan({ parsers: [], projects: [], state, live }));
    const { comments } = await comment(
      { code: '2', md },
      { WORKSPACE: 'w'.repeat(500), DIRECTORY: 'd/'.repeat(500) },
    );
    const body = comments[0]?.body ?? '';
    expect(body.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    // Nothing of the plan itself had to be cut by the comment step: the plan left room for the header.
    expect(body.endsWith(md)).toBe(true);
  });
});
