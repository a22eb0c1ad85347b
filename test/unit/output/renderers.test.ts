import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../../src/apply/apply-model.js';
import type { ExpectCheckResult } from '../../../src/apply/run-expect-checks.js';
import { createColors } from '../../../src/output/colors.js';
import type { ApplyReport } from '../../../src/output/render-apply.js';
import { managedIds } from '../../../src/output/render-managed-ids.js';
import { formatsOf, renderOutput } from '../../../src/output/render-output.js';
import type { State } from '../../../src/state/model.js';
import type { StatusRow } from '../../../src/workspace/read-status.js';

const plain = createColors(false);

const checks: ExpectCheckResult[] = [
  {
    address: 'parser.books',
    url: 'https://books.example/a.html',
    ok: true,
    version: 2,
    mismatches: [],
    startedAt: '2026-11-23T08:00:00.000Z',
    durationMs: 812,
  },
  {
    address: 'parser.books',
    url: 'https://books.example/b.html?q="x"&y=<1>',
    ok: false,
    version: 2,
    mismatches: [{ path: 'price', expected: 12.5, actual: '12,50', reason: 'different' }],
    startedAt: '2026-11-23T08:00:01.000Z',
    durationMs: 640,
  },
  {
    address: 'parser.news',
    url: 'https://news.example/1.html',
    ok: false,
    mismatches: [],
    error: 'parser.news is not managed yet',
    startedAt: '2026-11-23T08:00:02.000Z',
    durationMs: 3,
  },
];

const result: ApplyResult = {
  interrupted: false,
  state: { format_version: 1, serial: 3, lineage: 'l', resources: {} },
  results: [
    {
      address: 'parser.books',
      action: 'update',
      ok: true,
      calls: [{ method: 'PATCH', path: '/parsers/p-1/1', status: 202 }],
      id: 'p-1',
      version: 2,
      status: 'FINISHED',
    },
    { address: 'project.nightly', action: 'create', ok: true, calls: [], id: 7 },
    {
      address: 'parser.news',
      action: 'create',
      ok: false,
      calls: [],
      id: null,
      error: {
        code: 'apply.generation-failed',
        message: 'version 0 FAILED: DownloadError',
        hint: 'common causes: …',
      },
    },
  ],
};

const rows: StatusRow[] = [
  { address: 'parser.books', id: 'p-1', version: 2, status: 'FINISHED', drift: false },
  {
    address: 'parser.gen',
    id: 'p-2',
    version: 0,
    status: 'GENERATING',
    drift: false,
    generatingForMs: 95_000,
  },
  {
    address: 'parser.gone',
    id: 'p-3',
    version: 1,
    status: 'MISSING (deleted outside scrapeform)',
    drift: true,
  },
  {
    address: 'project.nightly',
    id: 7,
    status: 'scheduled',
    drift: false,
    schedule: 'daily',
    nextRun: '2026-11-24T00:00:00.000Z',
    lastJob: { id: 'j-1', status: 'Finished', doneCount: 2, failedCount: 0 },
  },
  { address: 'project.quiet', id: 8, status: 'scheduling off', drift: false, schedule: 'off', lastJob: null },
];

const state: State = {
  format_version: 1,
  serial: 4,
  lineage: 'l',
  resources: {
    'project.nightly': { kind: 'Project', id: 7, name: 'nightly', definition: {} },
    'parser.news': {
      kind: 'Parser',
      id: 'p-2',
      name: 'news',
      version: null,
      definition: null,
      descriptionsKnown: true,
    },
    'parser.books': {
      kind: 'Parser',
      id: 'p-1',
      name: 'books',
      version: 2,
      definition: null,
      descriptionsKnown: true,
    },
  },
};

describe('renderers of command output', () => {
  it('apply, human and JSON, with a failure and the expect checks', () => {
    const report: ApplyReport = { result, checks, resultDiffs: [] };
    expect(renderOutput('apply', 'human', report, plain)).toMatchSnapshot();
    expect(renderOutput('apply', 'json', report, plain)).toMatchSnapshot();
  });

  it('apply as Markdown: the data each regeneration changed, hostile values kept as text', () => {
    const report: ApplyReport = {
      result,
      checks,
      resultDiffs: [
        {
          address: 'parser.books',
          from: { id: 'p-1', version: 1 },
          to: { id: 'p-1', version: 2 },
          changes: [
            { url: 'https://books.example/a.html', path: 'title', change: 'changed', from: 'A', to: null },
            {
              url: 'https://books.example/a.html',
              path: 'note',
              change: 'added',
              to: '</details> ``` @everyone',
            },
          ],
          missing: ['title'],
        },
      ],
    };
    const markdown = renderOutput('apply', 'markdown', report, plain);
    expect(markdown).toMatchSnapshot();
    // The hostile value sits inside a fence longer than any backtick run in it, so it cannot close the block.
    expect(markdown).toContain('````diff\n');
    expect(markdown.match(/<\/details>/g)).toHaveLength(2);
    expect(markdown).toContain('Likely regression: `title`');
    expect(renderOutput('apply', 'human', report, plain)).toContain(
      'likely regression: title had a value before and is missing from every example now',
    );
  });

  it('apply with names and scraped values holding bidi and C1 controls: escaped as the plan escapes them', () => {
    // Manifest names may hold bidi characters; scraped values and service texts anything.
    const rlo = '\u202e';
    const report: ApplyReport = {
      result: {
        interrupted: false,
        state: result.state,
        results: [
          {
            address: `parser.books${rlo}fdp.exe`,
            action: 'create',
            ok: false,
            calls: [],
            id: `p-1${rlo}`,
            error: { code: 'apply.generation-failed', message: `FAILED: ${rlo}x\n|y`, hint: `see ${rlo}` },
            warnings: [`name ${rlo}\u0085`],
          },
        ],
      },
      checks: [
        {
          address: `parser.books${rlo}fdp.exe`,
          url: `https://books.example/${rlo}a.html`,
          ok: false,
          version: 0,
          mismatches: [{ path: `pr${rlo}ice`, expected: 'x', actual: `\u009b2J${rlo}`, reason: 'different' }],
          startedAt: '2026-11-23T08:00:00.000Z',
          durationMs: 1,
        },
      ],
      resultDiffs: [
        {
          address: `parser.books${rlo}fdp.exe`,
          from: { id: 'p-1', version: 0 },
          to: { id: 'p-1', version: 1 },
          changes: [
            {
              url: `https://books.example/${rlo}a.html`,
              path: `ti${rlo}tle`,
              change: 'changed',
              from: `\u0085${rlo}`,
              to: 'B',
            },
          ],
          missing: [`ti${rlo}tle`],
        },
      ],
    };
    const human = renderOutput('apply', 'human', report, plain);
    expect(human.split('\n')).toEqual([
      '',
      'Apply finished with failures: 0 applied, 1 failed.',
      '  ✗ parser.books\\u202efdp.exe create p-1\\u202e: FAILED: \\u202ex\\n|y',
      '      hint: see \\u202e',
      '      warning: name \\u202e\\u0085',
      '',
      'Expect checks:',
      '✗ parser.books\\u202efdp.exe https://books.example/\\u202ea.html (version 0)',
      '    pr\\u202eice: expected "x", got "\\u009b2J\\u202e"',
      '1 of 1 checks failed',
      '',
      'What the regenerations changed in the data:',
      'parser.books\\u202efdp.exe',
      '  example_result, version 0 -> 1:',
      '    https://books.example/\\u202ea.html',
      '      ~ ti\\u202etle: "\\u0085\\u202e" -> "B"',
      '  likely regression: ti\\u202etle had a value before and is missing from every example now',
    ]);
    const markdown = renderOutput('apply', 'markdown', report, plain);
    expect(markdown).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
    expect(markdown).toContain(
      '| `parser.books\\u202efdp.exe` | create | failed `p-1\\u202e`: `FAILED: \\u202ex\\n\\|y` |\n',
    );
    expect(markdown).toContain(
      '- `parser.books\\u202efdp.exe` `https://books.example/\\u202ea.html`: `pr\\u202eice`\n',
    );
    expect(markdown).toContain('#### Data: `parser.books\\u202efdp.exe`, version 0 -> 1\n');
    expect(markdown).toContain('> Likely regression: `ti\\u202etle` had a value before');
    expect(markdown).toContain('      ~ ti\\u202etle: "\\u0085\\u202e" -> "B"\n');
  });

  it('apply with nothing to do prints nothing for people and a no_changes envelope as JSON', () => {
    const report: ApplyReport = { result: undefined, checks: [], resultDiffs: [] };
    expect(renderOutput('apply', 'human', report, plain)).toBe('');
    expect(JSON.parse(renderOutput('apply', 'json', report, plain))).toEqual({
      status: 'no_changes',
      results: [],
    });
  });

  it('an interrupted apply says what to do next', () => {
    const report: ApplyReport = { result: { ...result, interrupted: true }, checks: [], resultDiffs: [] };
    expect(renderOutput('apply', 'human', report, plain)).toContain(
      'Interrupted: state holds everything that was done; plan again to see what is left.',
    );
    expect(JSON.parse(renderOutput('apply', 'json', report, plain)).status).toBe('interrupted');
  });

  // Review: a Ctrl-C, then a state write that failed, printed both "state does not hold all it did" and "state holds
  // everything that was done", and the stopped parser's own line said state recorded it as pending.
  it('an interrupted apply whose state write then failed never says state holds what it did', () => {
    const stopped: ApplyResult = {
      ...result,
      interrupted: true,
      results: [
        {
          address: 'parser.books',
          action: 'update',
          ok: false,
          calls: [{ method: 'PATCH', path: '/api/ai/parsers/p-1', status: 200 }],
          id: 'p-1',
          error: {
            code: 'apply.interrupted',
            message: 'interrupted while version 2 of parser p-1 was generating: state records it as pending',
          },
        },
      ],
    };
    const report: ApplyReport = {
      result: stopped,
      checks: [],
      resultDiffs: [],
      error: {
        code: 'state.unreachable',
        message: 'cannot reach the state database',
        unrecorded: ['parser.books'],
      },
    };
    const human = renderOutput('apply', 'human', report, plain);
    expect(human).not.toContain('state holds everything');
    expect(human).not.toContain('records it as pending');
    expect(human.split('\n')).toEqual([
      '',
      'Apply stopped by a state error: 0 applied, 1 stopped while in progress, 0 failed.',
      '  ■ parser.books update p-1: interrupted after its call was answered; the state write that followed failed, so state does not record it: the next apply reads it again',
      'State does not hold all it did for parser.books: the next apply reads it again.',
      'Interrupted, and stopped by the error above: plan again to see what is left.',
    ]);
  });

  it("Ctrl-C just before a change's first call: counted not started, not stopped while in progress", () => {
    const interrupted: ApplyResult = {
      ...result,
      interrupted: true,
      results: [
        {
          address: 'project.x',
          action: 'create',
          ok: false,
          calls: [],
          id: null,
          error: {
            code: 'apply.interrupted',
            message: 'interrupted before this call; state holds what was done',
          },
        },
      ],
    };
    const report: ApplyReport = { result: interrupted, checks: [], resultDiffs: [] };
    const human = renderOutput('apply', 'human', report, plain).split('\n');
    expect(human[1]).toBe('Apply interrupted: 0 applied, 1 not started, 0 failed.');
    expect(human).toContain('  - project.x create: not started');
    expect(renderOutput('apply', 'markdown', report, plain)).toContain(
      '| `project.x` | create | not started |',
    );
  });

  it('status, human and JSON', () => {
    expect(renderOutput('status', 'human', rows, plain)).toMatchSnapshot();
    expect(renderOutput('status', 'json', rows, plain)).toMatchSnapshot();
    expect(renderOutput('status', 'human', [], plain)).toBe('Nothing is managed yet.');
  });

  it('jobs, human and JSON', () => {
    const view = {
      address: 'project.nightly',
      jobs: [
        { id: 'j-1', status: 'Finished', startedAt: '2026-11-23T01:00:00Z', doneCount: 2, failedCount: 0 },
        { id: 'j-2', status: 'Running' },
      ],
    };
    expect(renderOutput('jobs', 'human', view, plain)).toMatchSnapshot();
    expect(JSON.parse(renderOutput('jobs', 'json', view, plain))).toEqual(view.jobs);
    expect(renderOutput('jobs', 'human', { address: 'project.quiet', jobs: [] }, plain)).toBe(
      'project.quiet has no jobs yet.',
    );
  });

  it('test results as text, JSON and JUnit XML (escaped)', () => {
    const report = { results: checks, interrupted: false, notRun: [] };
    expect(renderOutput('test', 'human', report, plain)).toMatchSnapshot();
    expect(JSON.parse(renderOutput('test', 'json', report, plain)).passed).toBe(false);
    const xml = renderOutput('test', 'junit', report, plain);
    expect(xml).toMatchSnapshot();
    expect(xml).toContain('name="https://books.example/b.html?q=&quot;x&quot;&amp;y=&lt;1&gt;"');
    expect(renderOutput('test', 'human', { results: [], interrupted: false, notRun: [] }, plain)).toBe(
      'No expect blocks to run.',
    );
  });

  it('status, jobs and output tables print live values printable: no line forged, nothing cleared', () => {
    const forged = 'x\u001b[2J\r\nproject.fake  1  ok\u202e';
    const shown = 'x\\u001b[2J\\r\\nproject.fake  1  ok\\u202e';
    expect(
      renderOutput(
        'status',
        'human',
        [
          {
            address: 'project.p',
            id: 7,
            status: forged,
            drift: false,
            lastJob: { id: forged, status: forged },
          },
        ],
        plain,
      ).split('\n'),
    ).toEqual([
      `address    id  version  status${' '.repeat(shown.length - 6)}  drift  schedule  next run  last job`,
      `project.p  7            ${shown}                             ${shown} ${shown} (? done, ? failed)`,
    ]);
    const jobs = renderOutput(
      'jobs',
      'human',
      { address: 'project.p', jobs: [{ id: forged, status: 'Done' }] },
      plain,
    );
    expect(jobs.split('\n')[1]).toBe(
      `${shown}  Done    -              -        -         -       -     -       -`,
    );
    const ids = {
      parsers: { [forged]: { address: `parser.${forged}`, id: 'p-1', version: 0 } },
      projects: {},
    };
    expect(renderOutput('ids', 'human', ids, plain).split('\n')[1]).toBe(`parser.${shown}  p-1  0`);
  });

  it('managed ids, sorted by address whatever order state holds them in', () => {
    const ids = managedIds(state);
    expect(Object.keys(ids.parsers)).toEqual(['books', 'news']);
    expect(renderOutput('ids', 'human', ids, plain)).toMatchSnapshot();
    expect(renderOutput('ids', 'json', ids, plain)).toMatchSnapshot();
  });

  it('a format a command does not offer is a usage error naming the ones it does', () => {
    expect(formatsOf('status')).toEqual(['human', 'json']);
    expect(() => renderOutput('status', 'markdown', rows, plain)).toThrow(
      'status cannot be printed as markdown; it can be: human, json',
    );
  });
});
