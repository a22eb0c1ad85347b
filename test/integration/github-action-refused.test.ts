import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runActionStep, runCommentScript } from '../helpers/github-action.js';

const REFUSAL = [
  'Saved the plan to scrapeform-plan.json; apply it exactly with: scrapeform apply --plan scrapeform-plan.json',
  'error: the plan regenerates 4 parsers (~120,000 credits), more than --max-regenerations 1',
  '  hint: split the change, or raise --max-regenerations after checking the cost',
  '',
].join('\n');

/** `plan` exits 3 after writing the whole plan when it regenerates more than max-regenerations. */
describe('a plan refused for max-regenerations, in the Action', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-action-refused-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('the job summary and outputs carry the plan, the refusal on top, and the step after still fails', async () => {
    await writeFile(
      path.join(dir, 'fake.mjs'),
      `import { writeFileSync } from 'node:fs';
writeFileSync(process.argv[process.argv.indexOf('--out') + 1], JSON.stringify({ resource_changes: [
  { destructive: true, reasons: ['urls changed'] },
] }));
console.log('### scrapeform plan\\n\\n**Plan: 4 to replace (4 regenerations, ~120,000 credits).**');
process.stderr.write(${JSON.stringify(REFUSAL)});
process.exit(3);
`,
    );
    const out = path.join(dir, 'out');
    const result = await runActionStep(dir, 'plan', {
      PATHS: '.',
      PLAN_FILE: 'scrapeform-plan.json',
      MAX_REGENERATIONS: '1',
      OUT_DIR: out,
    });
    expect(result.code).toBe(0);
    expect(result.output).toContain('has-changes=true\ndestructive=true\nadopts=false\n');
    expect(result.output).toContain('**Plan: 4 to replace (4 regenerations, ~120,000 credits).**');
    expect(await readFile(path.join(dir, 'summary'), 'utf8')).toBe(
      `### scrapeform plan refused (exit 3)\n\nNothing was applied. The plan below was refused:\n\n\`\`\`text\n${REFUSAL}\n\`\`\`\n\n### scrapeform plan\n\n**Plan: 4 to replace (4 regenerations, ~120,000 credits).**\n`,
    );
    const fail = await runActionStep(dir, 'Fail when the plan failed', { OUT_DIR: out });
    expect(fail.code).toBe(3);
  });

  it('the job summary waits for the whole refusal: stderr copied to the log by a slow tee is not cut off', async () => {
    // stderr goes to the log and to plan.err through tee; the summary is written from plan.err as soon as plan
    // exits. A tee still copying then (a busy runner; here one that opens its file, then copies late) left the
    // refusal out of the summary, under "The plan below was refused:".
    await writeFile(
      path.join(dir, 'bin', 'tee'),
      '#!/usr/bin/env bash\n: > "$1"\nsleep 0.5\nPATH="${PATH#*:}" exec tee "$@"\n',
      { mode: 0o755 },
    );
    await rm(path.join(dir, 'summary'), { force: true });
    try {
      const out = path.join(dir, 'out-slow-tee');
      const result = await runActionStep(dir, 'plan', {
        PATHS: '.',
        PLAN_FILE: 'scrapeform-plan.json',
        MAX_REGENERATIONS: '1',
        OUT_DIR: out,
      });
      expect(result.code).toBe(0);
      expect(await readFile(path.join(out, 'plan.err'), 'utf8')).toBe(REFUSAL);
      expect(await readFile(path.join(dir, 'summary'), 'utf8')).toBe(
        `### scrapeform plan refused (exit 3)\n\nNothing was applied. The plan below was refused:\n\n\`\`\`text\n${REFUSAL}\n\`\`\`\n\n### scrapeform plan\n\n**Plan: 4 to replace (4 regenerations, ~120,000 credits).**\n`,
      );
      expect(await readFile(path.join(out, 'plan.code'), 'utf8')).toBe('3\n');
    } finally {
      await rm(path.join(dir, 'bin', 'tee'));
    }
  });

  it('the comment keeps the refusal itself when retries were logged before it', async () => {
    // What a flaky service prints on stderr before the refusal: a line per retry (shared-flags.ts, transportLogger).
    const retries = ['parsers', 'api/projects']
      .flatMap((list) =>
        [1, 2, 3].map(
          (attempt) =>
            `retrying GET https://service.example/${list} in 0.${attempt}s (HTTP 503, attempt ${attempt})\n`,
        ),
      )
      .join('');
    const md = '### scrapeform plan\n\n**Plan: 4 to replace (4 regenerations, ~120,000 credits).**\n';
    const { comments } = await runCommentScript(dir, { code: '3', md, err: `${retries}${REFUSAL}` }, {});
    const body = comments[0]?.body ?? '';
    expect(body).toContain(
      '\nerror: the plan regenerates 4 parsers (~120,000 credits), more than --max-regenerations 1\n  hint: split the change, or raise --max-regenerations after checking the cost\n',
    );
    expect(body).toContain(`\n\`\`\`\n\n${md}`);
  });

  it('the comment shows the plan under the refusal, and a destructive one gets the label', async () => {
    const md = '### scrapeform plan\n\n**Plan: 4 to replace (4 regenerations, ~120,000 credits).**\n';
    const { comments, labels } = await runCommentScript(
      dir,
      { code: '3', md, err: REFUSAL },
      { DESTRUCTIVE: 'true', DESTRUCTIVE_LABEL: 'scrapeform-destructive' },
    );
    // The destructive mark, the header, then the refusal over the plan.
    expect(comments[0]?.body.split('\n')[1]).toBe('<!-- scrapeform-destructive -->');
    expect(comments[0]?.body.split('\n').slice(3).join('\n')).toBe(
      `\n### scrapeform plan refused (exit 3)\n\nNothing was applied. The plan below was refused:\n\n\`\`\`text\n${REFUSAL}\n\`\`\`\n\n${md}`,
    );
    expect(labels).toEqual(['scrapeform-destructive']);
  });
});
