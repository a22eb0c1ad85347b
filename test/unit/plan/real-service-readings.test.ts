import { describe, expect, it } from 'vitest';
import type { LiveParserDetails, LiveParserSummary, LiveProject } from '../../../src/api/live.js';
import { PROJECT_FIELDS } from '../../../src/model/project-fields.js';
import { PROJECT_DIFFABLE_KEYS } from '../../../src/model/vocabulary.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { normaliseExampleUrl } from '../../../src/model/example-url.js';
import { sameExampleUrls } from '../../../src/plan/example-urls.js';
import { projectPayload } from '../../../src/plan/plan-project.js';
import type { ParserState, ProjectState, State } from '../../../src/state/model.js';
import { desiredParser, desiredProject } from '../../helpers/desired.js';

/** Issue 13 in the pure planner: statuses it does not know, example URLs, project fields not echoed. */
const URL_A = 'https://books.example/a.html';
const URL_B = 'https://books.example/b.html?x=1&y=2';

const books = desiredParser('books', [{ name: 'title', description: 'Title' }], { urls: [URL_A, URL_B] });

const nightly = desiredProject('nightly', {
  projectInput: { type: 'list', list: ['https://books.example/p1.html'] },
  scrapingInterval: 'daily',
  output_format: 'CSV',
  webhookOutput: { url: 'https://hooks.example/b' },
});

const state = (resources: State['resources']): State => ({
  format_version: 1,
  serial: 3,
  lineage: 'l',
  resources,
});

const summary = (status: string, version = 0): LiveParserSummary => ({
  id: 'p1',
  name: 'books',
  status,
  error: null,
  generated_at: null,
  version,
});

const recordedParser = (extra: Partial<ParserState> = {}): ParserState => ({
  kind: 'Parser',
  id: 'p1',
  name: 'books',
  version: 0,
  definition: { urls: books.urls, scraperParams: {}, fields: books.fields },
  descriptionsKnown: true,
  ...extra,
});

function planParsers(
  recorded: ParserState | undefined,
  live: LiveParserSummary,
  details?: LiveParserDetails,
) {
  return buildPlan({
    parsers: [books],
    projects: [],
    state: state(recorded !== undefined ? { 'parser.books': recorded } : {}),
    live: { parsers: [live], details: details !== undefined ? { p1: details } : {}, projects: [] },
  });
}

describe('an unknown parser status means still working', () => {
  it('a pending version in an unknown status is waited for, never retried or replaced', () => {
    const pending = recordedParser({
      version: null,
      definition: null,
      pending: { version: 0, definition: { urls: books.urls, scraperParams: {}, fields: books.fields } },
    });
    const plan = planParsers(pending, summary('QUEUED'));
    expect(plan.resource_changes).toEqual([]);
    expect(plan.warnings).toEqual([
      'parser.books: version 0 is still generating (status QUEUED); nothing to change until it finishes',
    ]);
  });

  it('a version that moved outside scrapeform and is in an unknown status is not diffed', () => {
    const plan = planParsers(recordedParser(), summary('PENDING_REVIEW', 4));
    expect(plan.resource_changes).toEqual([]);
    expect(plan.warnings).toEqual([
      'parser.books: version 4 was made outside scrapeform and is still generating (status PENDING_REVIEW); plan again once it finishes',
    ]);
  });

  it('a parser never finished, now in an unknown status, is not replaced', () => {
    const plan = planParsers(
      recordedParser({ version: null, definition: null, failed: { version: 0, error: 'x' } }),
      summary('RETRYING', 1),
    );
    expect(plan.resource_changes).toEqual([]);
  });

  it('an adoption candidate in an unknown status is waited for, not replaced', () => {
    const details: LiveParserDetails = {
      id: 'p1',
      name: 'books',
      version: 0,
      status: 'IN_PROGRESS',
      error: null,
      createdAt: null,
      generatedAt: null,
      exampleResult: null,
      fields: [],
    };
    const plan = planParsers(undefined, summary('IN_PROGRESS'), details);
    expect(plan.resource_changes).toEqual([]);
    expect(plan.warnings).toContain(
      'parser.books: the live parser p1 with this name is still generating (status IN_PROGRESS); plan again once it finishes to adopt it',
    );
  });

  it('an interrupted replace whose new parser is in an unknown status does not delete the old one', () => {
    const plan = planParsers(
      recordedParser({
        version: null,
        definition: null,
        pending: { version: 0, definition: { urls: books.urls, scraperParams: {}, fields: books.fields } },
        replacing: { oldId: 'old' },
      }),
      summary('WAITING'),
    );
    expect(plan.resource_changes).toEqual([]);
  });
});

describe('example URLs compared as the service may normalise them', () => {
  it('order, trailing slash, default port, case of scheme and host, fragment and query order do not matter', () => {
    expect(normaliseExampleUrl('HTTPS://Books.Example:443/a/?y=2&x=1#top')).toBe(
      'https://books.example/a?x=1&y=2',
    );
    expect(
      sameExampleUrls(
        [URL_A, URL_B],
        ['https://books.example/b.html?y=2&x=1', 'https://BOOKS.example/a.html/'],
      ),
    ).toBe(true);
  });

  it('a path spelled with other escapes of the same characters is the same page (RFC 3986 6.2.2)', () => {
    // Review: the service handing back `%7E` for `~`, or lower-case hex, planned a replace (a paid create).
    expect(normaliseExampleUrl('https://books.example/%7Eshelf/caf%c3%a9.html')).toBe(
      'https://books.example/~shelf/caf%C3%A9.html',
    );
    expect(
      sameExampleUrls(
        ['https://books.example/~shelf/a-b_c.html', 'https://books.example/caf%C3%A9.html'],
        ['https://books.example/%7Eshelf/a%2Db%5Fc.html', 'https://books.example/caf%c3%a9.html'],
      ),
    ).toBe(true);
    // An escaped reserved character is not the character: `%2F` inside a segment is no `/`.
    expect(sameExampleUrls(['https://books.example/a/b.html'], ['https://books.example/a%2Fb.html'])).toBe(
      false,
    );
  });

  it('a different path, port, scheme or count still differs', () => {
    expect(sameExampleUrls([URL_A], ['https://books.example/c.html'])).toBe(false);
    expect(sameExampleUrls([URL_A], ['https://books.example:8443/a.html'])).toBe(false);
    expect(sameExampleUrls([URL_A], ['http://books.example/a.html'])).toBe(false);
    expect(sameExampleUrls([URL_A, URL_B], [URL_A])).toBe(false);
  });

  it('a recorded parser whose manifest only respells its urls is not replaced', () => {
    const plan = planParsers(
      recordedParser({
        definition: { urls: [URL_B, `${URL_A}#x`], scraperParams: {}, fields: books.fields },
      }),
      summary('FINISHED'),
    );
    expect(plan.resource_changes).toEqual([]);
  });
});

describe('project fields the service does not echo', () => {
  const recorded = (extra: Partial<ProjectState> = {}): ProjectState => ({
    kind: 'Project',
    id: 7,
    name: 'nightly',
    definition: projectPayload(nightly),
    ...extra,
  });
  const sparse = (extra: Record<string, unknown> = {}): LiveProject => ({
    id: 7,
    name: 'nightly',
    projectType: 'urls',
    projectInput: { type: 'list', list: ['https://books.example/p1.html'] },
    scrapingInterval: 'daily',
    schedulingEnabled: true,
    projectOutput: { type: 'save' },
    notificationConfig: { notifyOnSuccess: 'never', notifyOnFailure: 'with_every_run' },
    ...extra,
  });
  const planProjects = (rec: ProjectState | undefined, live: LiveProject, desired = nightly) =>
    buildPlan({
      parsers: [],
      projects: [desired],
      state: state(rec !== undefined ? { 'project.nightly': rec } : {}),
      live: { parsers: [], details: {}, projects: [live] },
    });

  it('a field the answer leaves out is compared with the last apply, not with a default', () => {
    const live = sparse({ projectOutput: { type: 'webhook', url: 'https://hooks.example/b' } });
    expect(planProjects(recorded(), live).resource_changes).toEqual([]);
  });

  it('a webhook reported under projectOutput, or as webhookOutput, reads the same', () => {
    const webhook = { url: 'https://hooks.example/b' };
    const both = sparse({ webhookOutput: webhook, output_format: 'CSV' });
    expect(planProjects(recorded(), both).resource_changes).toEqual([]);
    const outputFormat = sparse({ projectOutput: { type: 'webhook', ...webhook }, outputFormat: 'CSV' });
    expect(planProjects(recorded(), outputFormat).resource_changes).toEqual([]);
  });

  it('projectOutput of type save says nothing of a webhook beside it: compared with the last apply, so no PATCH on every run', () => {
    expect(planProjects(recorded(), sparse({ output_format: 'CSV' })).resource_changes).toEqual([]);
  });

  it('a webhook dropped from the manifest is sent as null even when the answer says only projectOutput save', () => {
    const plain = { ...nightly, webhookOutput: undefined };
    const plan = planProjects(recorded(), sparse({ output_format: 'CSV' }), plain);
    expect(
      plan.resource_changes.map((c) =>
        c.kind === 'Project' && c.action === 'update' ? c.changed : c.action,
      ),
    ).toEqual([{ webhookOutput: null }]);
  });

  it('a webhook dropped from the manifest is sent as null when the answer says webhookOutput null beside a webhook projectOutput', () => {
    const plain = { ...nightly, webhookOutput: undefined };
    const live = sparse({
      webhookOutput: null,
      projectOutput: { type: 'webhook', url: 'https://hooks.example/b' },
    });
    const plan = planProjects(recorded(), live, plain);
    // Before, the null was read as "no webhook": nothing was sent, and results kept going to the webhook.
    expect(
      plan.resource_changes.map((c) =>
        c.kind === 'Project' && c.action === 'update' ? c.changed : c.action,
      ),
    ).toEqual([{ webhookOutput: null }]);
    // And a webhook still declared is no change, nor a warning that it did not take.
    expect(planProjects(recorded(), live).resource_changes).toEqual([]);
  });

  it('a key the plan does not compare (a status, a last-run time) does not move the fingerprint a saved plan is held to', () => {
    const first = planProjects(recorded(), sparse({ status: 'idle', lastRunAt: '2026-11-26T01:00:00Z' }));
    const later = planProjects(recorded(), sparse({ status: 'running', lastRunAt: '2026-11-26T02:00:00Z' }));
    expect(later.fingerprint.live['project.nightly']).toBe(first.fingerprint.live['project.nightly']);
    const edited = planProjects(recorded(), sparse({ scrapingInterval: 'hourly' }));
    expect(edited.fingerprint.live['project.nightly']).not.toBe(first.fingerprint.live['project.nightly']);
  });

  it('an input list the answer leaves out (or says null) is unknown, not empty: no PATCH of the entries', () => {
    expect(planProjects(recorded(), sparse({ projectInput: { type: 'list' } })).resource_changes).toEqual([]);
    expect(planProjects(recorded(), sparse({ projectInput: null })).resource_changes).toEqual([]);
  });

  it('adopting a project whose answer leaves keys out compares them with the service defaults', () => {
    const plain = { ...nightly, output_format: undefined, webhookOutput: undefined };
    const plan = planProjects(undefined, sparse(), plain);
    expect(plan.resource_changes.map((c) => c.action)).toEqual(['adopt']);
  });

  it('a dropped key is reset even when the service does not echo it', () => {
    const plain = { ...nightly, output_format: undefined };
    const plan = planProjects(
      recorded(),
      sparse({ projectOutput: { type: 'webhook', url: 'https://hooks.example/b' } }),
      plain,
    );
    expect(
      plan.resource_changes.map((c) =>
        c.kind === 'Project' && c.action === 'update' ? c.changed : c.action,
      ),
    ).toEqual([{ output_format: 'JSON' }]);
  });

  it('a value the service did not take last time is not sent again, and the plan says why', () => {
    const live = sparse({
      output_format: 'JSON',
      projectOutput: { type: 'webhook', url: 'https://hooks.example/b' },
    });
    const held = recorded({ held: { output_format: 'JSON' } });
    const plan = planProjects(held, live);
    expect(plan.resource_changes).toEqual([]);
    expect(plan.warnings).toEqual([
      'project.nightly: the service did not take output_format when it was last sent and still reports output_format = "JSON"; not sent again until the manifest changes (check the value, or the service\'s support)',
    ]);
    // A manifest that now asks for what the service holds has nothing to send; a live value that moved is sent.
    const changed = planProjects(held, live, { ...nightly, output_format: 'JSON' });
    expect(changed.resource_changes).toEqual([]);
    const other = planProjects(held, sparse({ output_format: 'XML', projectOutput: live.projectOutput }));
    expect(
      other.resource_changes.map((c) =>
        c.kind === 'Project' && c.action === 'update' ? c.changed : c.action,
      ),
    ).toEqual([{ output_format: 'CSV' }]);
  });

  it('the table covers every key ignore_changes may name', () => {
    expect(PROJECT_DIFFABLE_KEYS.filter((k) => !(k in PROJECT_FIELDS))).toEqual([]);
  });
});
