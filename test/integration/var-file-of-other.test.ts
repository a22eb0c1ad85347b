import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';

/**
 * Review: examples/multi-env keeps prod's values in vars/prod.yaml (prod's varFiles). `--env staging --var-file
 * vars/prod.yaml` (a mis-set `--var-file "$VARS"` in a CI job) was taken silently: staging's plan declared prod's 8
 * category parsers (6 created in staging's account, 30,000 credits each) and replaced every parser reading
 * ${var.render}. It is refused as another environment's state or key variable is, before anything is read or sent.
 */
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function multiEnv(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-var-file-'));
  dirs.push(dir);
  await cp(path.join(import.meta.dirname, '../../examples/multi-env'), dir, { recursive: true });
  return dir;
}

// Loopback only, and refused before any call anyway.
const env = {
  SCRAPERAPI_STAGING_KEY: 'k'.repeat(32),
  SCRAPEFORM_PARSER_URL: 'http://127.0.0.1:9',
  SCRAPEFORM_PIPELINE_URL: 'http://127.0.0.1:9',
};

it('a var file of another environment is refused at that environment, by render and by plan', async () => {
  const dir = await multiEnv();
  for (const given of ['vars/prod.yaml', path.join(dir, 'vars', 'prod.yaml')])
    for (const command of ['render', 'plan']) {
      const run = await runScrapeform(['--chdir', dir, command, '--env', 'staging', '--var-file', given], {
        env,
      });
      expect([run.code, run.stdout], `${command} ${given}`).toEqual([1, '']);
      expect(run.stderr).toContain(
        `scrapeform.yaml:30:16 environments.prod.varFiles[0]: --var-file ${given} is a var file of environment "prod", and this run is for environment "staging": prod's values would be planned in staging's account\n  hint: leave --var-file out to use the varFiles of environment "staging", or choose --env prod`,
      );
    }
});

it("a var file no environment lists is the run's own, and is read", async () => {
  const dir = await multiEnv();
  await writeFile(path.join(dir, 'extra.yaml'), 'render: true\n');
  const run = await runScrapeform(['--chdir', dir, 'render', '--env', 'staging', '--var-file', 'extra.yaml']);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain('render: true');
});
