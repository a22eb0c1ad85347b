import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runScrapeform } from '../helpers/cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Action {
  runs: { using: string; steps: { run?: string; uses?: string }[] };
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

/** The composite action cannot run here (no GitHub); what it calls must exist in the CLI it installs. */
describe('action.yml', () => {
  it('is a composite action whose scrapeform calls use only existing commands and flags', async () => {
    const action = parse(await readFile(path.join(ROOT, 'action.yml'), 'utf8')) as Action;
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.outputs).sort()).toEqual(['has-changes', 'plan-markdown']);
    const calls = action.runs.steps.flatMap((s) => [...(s.run ?? '').matchAll(/bin\.js" (\w+) ([^\n]*)/g)]);
    expect(calls.map((c) => c[1])).toEqual(['plan', 'apply']);
    for (const call of calls) {
      const help = await runScrapeform([call[1] as string, '--help']);
      for (const flag of (call[2] ?? '').match(/--[a-z-]+/g) ?? []) expect(help.stdout).toContain(flag);
    }
  });

  it('the example workflow uses the action with the key from a secret and state in PostgreSQL', async () => {
    const text = await readFile(
      path.join(ROOT, 'examples/github-actions/.github/workflows/scrapeform.yml'),
      'utf8',
    );
    const workflow = parse(text) as {
      jobs: {
        scrapeform: {
          steps: { uses?: string; with?: Record<string, string>; env?: Record<string, string> }[];
        };
      };
    };
    const step = workflow.jobs.scrapeform.steps.find((s) => s.uses?.includes('scrapeform'));
    expect(step?.env?.SCRAPERAPI_API_KEY).toBe('${{ secrets.SCRAPERAPI_API_KEY }}');
    expect(step?.with?.state).toBe('${{ secrets.SCRAPEFORM_STATE_URL }}');
  });
});
