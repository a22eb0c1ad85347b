import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempProjects } from '../../helpers/temp-projects.js';
import { MIN_KEY_LENGTH_IN_DATA } from '../../../src/api/redact.js';
import { MIN_KEY_LENGTH_IN_VALUES } from '../../../src/manifest/check-key-values.js';
import { loadAllEnvironments, loadManifests } from '../../../src/manifest/load-manifests.js';

const STAGING = 'stagingkey0123456789abcdef0123456';
// No run of 12 characters in common with STAGING: a key's first or last 12 are looked for inside any word.
const PROD = 'prodkey9876543210fedcba987654321';
/** A folder with these files (name -> text), removed after its test. */
const project = tempProjects('scrapeform-key-values-');

const project_ = (url: string): string => `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }
webhookOutput:
  url: ${url}
`;

const CONFIG = (hook: string): string => `kind: Config
variables:
  hook: { type: string, default: https://hooks.example/in }
environments:
  staging:
    state: .scrapeform/staging.json
    apiKeyEnv: STAGING_KEY
  prod:
    state: .scrapeform/prod.json
    apiKeyEnv: PROD_KEY
    variables: { hook: "${hook}" }
`;

const REFERENCE_MESSAGE = (name: string): string =>
  `\${${name}} holds an API key: scrapeform writes declared values to state, saved plans and its output, where a key never goes`;

function show(dir: string) {
  return (d: { file: string; line: number; column: number; code: string; message: string }): string =>
    `${path.relative(dir, d.file)}:${d.line}:${d.column} ${d.code} ${d.message}`;
}

describe('a key never reaches a declared value', () => {
  it('refuses a reference to SCRAPERAPI_API_KEY at its place, set or not; a literal $${ is no reference', async () => {
    const dir = await project({
      'p.yaml': project_('https://hooks.example/in?k=${SCRAPERAPI_API_KEY}'),
      'q.yaml': project_('https://hooks.example/in?k=$${SCRAPERAPI_API_KEY}').replace('nightly', 'weekly'),
    });
    // Refused at the value that holds it, and never expanded: unset, it is not also reported as unset.
    for (const env of [{}, { SCRAPERAPI_API_KEY: STAGING }]) {
      const loaded = await loadManifests({ paths: [dir], env });
      expect(loaded.diagnostics.map(show(dir))).toEqual([
        `p.yaml:6:8 manifest.api-key-reference ${REFERENCE_MESSAGE('SCRAPERAPI_API_KEY')}`,
      ]);
      expect(loaded.diagnostics.at(-1)?.hint).toBe(
        'remove the reference (a webhook that needs a secret should read it from its own service, never from the variable of a ScraperAPI key)',
      );
      expect(loaded.valid).toBe(false);
    }
  });

  it("refuses another environment's key variable referenced in scrapeform.yaml, in every environment", async () => {
    const dir = await project({
      'scrapeform.yaml': CONFIG('https://hooks.example/in?token=${STAGING_KEY}'),
      'p.yaml': project_('${var.hook}'),
    });
    const env = { STAGING_KEY: STAGING, PROD_KEY: PROD };
    const prod = await loadManifests({ paths: [dir], env, environment: 'prod' });
    expect(prod.diagnostics.map(show(dir))).toEqual([
      `scrapeform.yaml:11:56 manifest.api-key-reference ${REFERENCE_MESSAGE('STAGING_KEY')}`,
    ]);
    const all = await loadAllEnvironments({ paths: [dir], env });
    expect(all.diagnostics.map(show(dir))).toEqual(prod.diagnostics.map(show(dir)));
  });

  it('refuses the value of any key variable that is set, plain or URL-encoded, however it arrived', async () => {
    const dir = await project({
      'scrapeform.yaml': CONFIG('https://hooks.example/in'),
      'p.yaml': project_('${var.hook}'),
    });
    const vars = await project({
      'plain.yaml': `hook: https://hooks.example/in?token=${STAGING}\n`,
      'encoded.yaml': `hook: https://hooks.example/in?token=${encodeURIComponent(`${PROD}/`)}\n`,
    });
    const env = { STAGING_KEY: STAGING, PROD_KEY: `${PROD}/` };
    const message = (name: string): string =>
      `p.yaml:1:1 manifest.api-key-in-value project.nightly holds the value of ${name} (an API key) in a declared value: scrapeform writes declared values to state, saved plans and its output, where a key never goes`;
    for (const [file, name] of [
      ['plain.yaml', 'STAGING_KEY'],
      ['encoded.yaml', 'PROD_KEY'],
    ] as const) {
      const loaded = await loadManifests({
        paths: [dir],
        env,
        environment: 'prod',
        varFiles: [path.join(vars, file)],
      });
      expect(loaded.diagnostics.map(show(dir))).toEqual([message(name)]);
    }
    // A key too short to tell from ordinary text (an emulator's) is not looked for.
    const short = await loadManifests({
      paths: [dir],
      env: { STAGING_KEY: 'token' },
      environment: 'prod',
      varFiles: [path.join(vars, 'plain.yaml')],
    });
    expect(short.diagnostics).toEqual([]);
    expect(MIN_KEY_LENGTH_IN_VALUES).toBe(MIN_KEY_LENGTH_IN_DATA);
  });

  it('refuses the value of a key variable upper-cased or base64-encoded in a declared value', async () => {
    const dir = await project({
      'scrapeform.yaml': CONFIG('https://hooks.example/in'),
      'p.yaml': project_('${var.hook}'),
    });
    const vars = await project({
      'upper.yaml': `hook: https://hooks.example/in?token=${STAGING.toUpperCase()}\n`,
      'base64.yaml': `hook: https://hooks.example/in?token=${Buffer.from(STAGING).toString('base64url')}\n`,
    });
    for (const file of ['upper.yaml', 'base64.yaml']) {
      const loaded = await loadManifests({
        paths: [dir],
        env: { STAGING_KEY: STAGING },
        environment: 'prod',
        varFiles: [path.join(vars, file)],
      });
      expect(loaded.diagnostics.map(show(dir))).toEqual([
        'p.yaml:1:1 manifest.api-key-in-value project.nightly holds the value of STAGING_KEY (an API key) in a declared value: scrapeform writes declared values to state, saved plans and its output, where a key never goes',
      ]);
    }
  });

  it('refuses the first or last 12 characters of a key glued inside a word, not 11 of them', async () => {
    const dir = await project({
      'scrapeform.yaml': CONFIG('https://hooks.example/in'),
      'p.yaml': project_('${var.hook}'),
    });
    const vars = await project({
      'head.yaml': `hook: https://hooks.example/in?token=x${STAGING.slice(0, 12)}z\n`,
      'tail.yaml': `hook: https://hooks.example/in?token=a${STAGING.slice(-12).toUpperCase()}b\n`,
      'eleven.yaml': `hook: https://hooks.example/in?token=x${STAGING.slice(0, 11)}z${STAGING.slice(-11)}\n`,
    });
    const refused = async (file: string): Promise<string[]> =>
      (
        await loadManifests({
          paths: [dir],
          env: { STAGING_KEY: STAGING },
          environment: 'prod',
          varFiles: [path.join(vars, file)],
        })
      ).diagnostics.map(show(dir));
    const message =
      'p.yaml:1:1 manifest.api-key-in-value project.nightly holds the value of STAGING_KEY (an API key) in a declared value: scrapeform writes declared values to state, saved plans and its output, where a key never goes';
    expect(await refused('head.yaml')).toEqual([message]);
    expect(await refused('tail.yaml')).toEqual([message]);
    expect(await refused('eleven.yaml')).toEqual([]);
  });

  it('a file that is not a manifest, or a comment, may name the key variable', async () => {
    const dir = await project({
      'p.yaml': `${project_('https://hooks.example/in')}# the key comes from \${SCRAPERAPI_API_KEY}\n`,
      'docker-compose.yml':
        'services:\n  app:\n    image: scraper\n    environment:\n      SCRAPERAPI_API_KEY: ${SCRAPERAPI_API_KEY}\n',
      'scrapeform.yaml': `${CONFIG('https://hooks.example/in')}# reads \${STAGING_KEY} # and \${PROD_KEY}\n`,
    });
    const loaded = await loadManifests({
      paths: [dir],
      env: { SCRAPERAPI_API_KEY: STAGING, STAGING_KEY: STAGING, PROD_KEY: PROD },
      environment: 'prod',
    });
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('a key variable with a newline after its value is still found in a declared value', async () => {
    const dir = await project({ 'p.yaml': project_(`https://hooks.example/in?k=${STAGING}`) });
    const loaded = await loadManifests({ paths: [dir], env: { SCRAPERAPI_API_KEY: `${STAGING}\n` } });
    expect(loaded.diagnostics.map((d) => d.code)).toEqual(['manifest.api-key-in-value']);
  });

  it('refuses a reference in a block scalar of scrapeform.yaml, after a #, and one in a default not taken', async () => {
    const dir = await project({
      'scrapeform.yaml': CONFIG('https://hooks.example/in').replace(
        '  hook: { type: string, default: https://hooks.example/in }',
        '  hook: { type: string, default: https://hooks.example/in }\n  note:\n    type: string\n    default: |\n      token #${SCRAPERAPI_API_KEY}',
      ),
      'p.yaml': project_('https://hooks.example/in?k=${A:-${SCRAPERAPI_API_KEY}}'),
    });
    const loaded = await loadManifests({
      paths: [dir],
      env: { A: 'set', SCRAPERAPI_API_KEY: 'short-key' },
      environment: 'prod',
    });
    expect(loaded.diagnostics.map(show(dir))).toEqual([
      `p.yaml:6:8 manifest.api-key-reference ${REFERENCE_MESSAGE('SCRAPERAPI_API_KEY')}`,
      `scrapeform.yaml:7:14 manifest.api-key-reference ${REFERENCE_MESSAGE('SCRAPERAPI_API_KEY')}`,
    ]);
  });
});

describe('no message quotes a key', () => {
  /** A realistic key: 32 hex digits, as ScraperAPI gives them. */
  const KEY = '3f9a1c2b7d4e8f60a1b2c3d4e5f60718';

  it('refuses the key in an object with other problems, and quotes it in none of their messages', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
variables:
  ptype: { type: string, default: urls }
  sn: { type: string, default: "1" }
  tok: { type: string, default: a }
`,
      'p.yaml': `kind: Parser
name: kp
urls: [https://books.example/a]
scraper_params:
  device_type: \${SCRAPER_TOKEN}
  session_number: \${var.sn}
fields:
  title:
    description: t
    type: \${var.tok}
expect:
  - url: https://books.example/a
    result: { title: "~\${var.tok}(" }
`,
      'q.yaml': `kind: Project
name: kq
projectType: \${var.ptype}
projectInput: { type: list, list: [https://books.example/a] }
`,
    });
    const vars = await project({ 'vars.yaml': `ptype: ${KEY}\nsn: ${KEY}\ntok: ${KEY}\n` });
    const refused = (address: string): string =>
      `manifest.api-key-in-value ${address} holds the value of SCRAPERAPI_API_KEY (an API key) in a declared value: scrapeform writes declared values to state, saved plans and its output, where a key never goes`;
    const loaded = await loadManifests({
      paths: [dir],
      env: { SCRAPERAPI_API_KEY: `${KEY}\n`, SCRAPER_TOKEN: KEY },
      varFiles: [path.join(vars, 'vars.yaml')],
    });
    expect(loaded.diagnostics.map(show(dir))).toEqual([
      `p.yaml:1:1 ${refused('parser.kp')}`,
      'p.yaml:5:16 manifest.invalid-value must be one of desktop, mobile; got "***"',
      'p.yaml:6:19 manifest.wrong-type expected a number, got "***"',
      'p.yaml:10:11 manifest.invalid-value must be one of string, number, array; got "***"',
      'p.yaml:13:22 manifest.expect-pattern "~***(" is not a valid regular expression: Unterminated group',
      `q.yaml:1:1 ${refused('project.kq')}`,
      expect.stringMatching(/^q\.yaml:3:14 manifest\.invalid-value must be one of urls, .*; got "\*\*\*"$/),
    ]);
    expect(JSON.stringify(loaded.diagnostics)).not.toContain(KEY);
  });

  it('takes every form of the key out of every message, and cuts no long value inside one', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
variables:
  n: { type: number, default: 1 }
  m: { type: number, default: 1 }
`,
      'p.yaml': `kind: Parser
name: kp
urls: [https://books.example/a]
fields:
  title: { description: t }
`,
    });
    const vars = await project({
      'vars.yaml': `n: https://hooks.example/in?token=${KEY}&more=1\nm: ${encodeURIComponent(`${KEY}/`)}\n`,
    });
    const loaded = await loadManifests({
      paths: [dir],
      env: { SCRAPERAPI_API_KEY: `${KEY}/` },
      varFiles: [path.join(vars, 'vars.yaml')],
    });
    expect(loaded.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([
      'config.variable-type variable "n" is declared number, got "https://hooks.example/in?token=..."',
      'config.variable-type variable "m" is declared number, got "***"',
    ]);
  });
});
