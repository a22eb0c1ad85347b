import { describe, expect, it } from 'vitest';
import { renderApplyMarkdown } from '../../../src/output/render-apply.js';
import { renderPlanMarkdown } from '../../../src/output/render-plan-markdown.js';
import { heldBack, summarisePlan } from '../../../src/output/render-plan.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import type { LiveSnapshot, Plan } from '../../../src/plan/model.js';
import type { ParserState, State } from '../../../src/state/model.js';
import { desiredField, desiredParser } from '../../helpers/desired.js';

const id = '4f3c2b1a-0000-4e5f-8a9b-0c1d2e3f4a5b';
const recorded = desiredParser('books', [desiredField('title', 'Title')]);
const definition = { urls: recorded.urls, scraperParams: {}, fields: recorded.fields };
/** The manifest asks for a description state never applied. */
const wanted = desiredParser('books', [desiredField('title', 'The title')]);
const wantedDefinition = { ...definition, fields: wanted.fields };

/** The plan of `wanted` against parser.books as state records it, the service showing `version` with `status`. */
function planOf(entry: Partial<ParserState>, version: number, status: string, created: string[] = []): Plan {
  const state: State = {
    format_version: 1,
    serial: 1,
    lineage: 'l',
    resources: {
      'parser.books': {
        kind: 'Parser',
        id,
        name: 'books',
        version: 3,
        definition,
        descriptionsKnown: true,
        ...entry,
      },
    },
  };
  const live: LiveSnapshot = {
    parsers: [{ id, name: 'books', status, error: null, generated_at: null, version }],
    details: {},
    projects: [],
  };
  const parsers = [wanted, ...created.map((name) => desiredParser(name, [desiredField('title', 'Title')]))];
  return buildPlan({ parsers, projects: [], state, live });
}

describe('a plan that holds a wanted change back never says the services match the manifests', () => {
  it('a parser still generating the version an earlier apply sent: the new change waits', () => {
    const plan = planOf({ pending: { version: 4, definition } }, 4, 'GENERATING');
    expect(plan.resource_changes).toEqual([]);
    expect(plan.warnings).toEqual([
      'parser.books: version 4 is still generating; plan again once it is FINISHED to change it',
    ]);
    expect(summarisePlan(plan)).toBe(
      'No changes planned: 1 parser is still generating (see the warning); plan again later.',
    );
    expect(renderApplyMarkdown({ result: undefined, checks: [], resultDiffs: [], ...heldBack(plan) })).toBe(
      '### scrapeform apply\n\nNo changes planned: 1 parser is still generating (see the warning); plan again later.\n',
    );
  });

  it('a definition that FAILED twice is not retried: the manifest needs fixing, it is not in line', () => {
    const failed = { version: 5, error: 'no selector found', definition: wantedDefinition, attempts: 2 };
    const plan = planOf({ failed }, 5, 'FAILED');
    expect(plan.resource_changes).toEqual([]);
    expect(summarisePlan(plan)).toBe(
      'No changes planned: 1 parser FAILED twice with what the manifests ask for and is not retried (see the warning).',
    );
    const markdown = renderPlanMarkdown(plan);
    expect(markdown).toContain(
      '**No changes planned: 1 parser FAILED twice with what the manifests ask for and is not retried (see the warning).**',
    );
    expect(markdown).not.toContain('match the manifests');
  });
});

describe('in the pull-request comment, a parser held back is said under the summary line, not folded away', () => {
  it('a plan with a create and a parser still generating: its warning is in the note, not in the collapsed warnings', () => {
    const plan = planOf({ pending: { version: 4, definition } }, 4, 'GENERATING', ['new']);
    expect(plan.resource_changes.map((c) => [c.address, c.action])).toEqual([['parser.new', 'create']]);
    const markdown = renderPlanMarkdown(plan);
    expect(markdown).toContain(
      [
        '**Plan: 1 to create (1 regeneration, ~30,000 credits).**',
        '',
        '> [!NOTE]',
        '> - parser.books: version 4 is still generating; plan again once it is FINISHED to change it',
        '',
        '| adopt |',
      ].join('\n'),
    );
    expect(markdown).not.toContain('<summary>Warnings</summary>');
  });
});
