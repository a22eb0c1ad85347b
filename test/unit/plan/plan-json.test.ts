import { describe, expect, it } from 'vitest';
import type { ParserChange, ProjectChange, ResourceChange } from '../../../src/plan/model.js';
import { changeRecord, plannedRequests, toResourceChangeJson } from '../../../src/plan/plan-json.js';
import type { ParserDefinition } from '../../../src/state/model.js';

const definition: ParserDefinition = {
  urls: ['https://b.example/1'],
  scraperParams: { render: true },
  fields: [
    { name: 'title', description: 'Title', selector: 'h1' },
    { name: 'price', description: 'Price', type: 'number' },
  ],
};
const common = {
  address: 'parser.books',
  name: 'books',
  reasons: ['why'],
  regenerates: false,
  destructive: false,
  field_changes: [],
  breaking: [],
};
/** A change of one action from its own payload; the fields every change has are filled in. */
type Payload<C> = C extends ResourceChange
  ? Omit<C, 'kind' | keyof typeof common> & Partial<typeof common>
  : never;
const parser = (payload: Payload<ParserChange>): ParserChange => ({ ...common, kind: 'Parser', ...payload });
const project = (payload: Payload<ProjectChange>): ProjectChange => ({
  ...common,
  address: 'project.nightly',
  name: 'nightly',
  kind: 'Project',
  ...payload,
});

const createBody = {
  name: 'books',
  urls: ['https://b.example/1'],
  scraper_params: { render: true },
  fields: [
    { name: 'title', description: 'Title', selector: 'h1' },
    { name: 'price', description: 'Price', type: 'number' },
  ],
};

describe('plannedRequests: the exact calls of each kind and action', () => {
  it('parser create: one POST with the wire body', () => {
    expect(plannedRequests(parser({ action: 'create', id: null, definition }))).toEqual([
      { service: 'parser', method: 'POST', path: '/parsers', body: createBody },
    ]);
  });

  it('parser create: empty scraper_params and fields are left out of the body', () => {
    const bare = { urls: ['https://b.example/1'], scraperParams: {}, fields: [] };
    expect(plannedRequests(parser({ action: 'create', id: null, definition: bare }))[0]?.body).toEqual({
      name: 'books',
      urls: ['https://b.example/1'],
    });
  });

  it('parser update: one PATCH per wave, the later ones chained on a predicted version', () => {
    const change = parser({
      action: 'update',
      id: 'p/1',
      baseVersion: 4,
      waves: [
        { rename_fields: [{ name: 'a', new_name: 'a__scrapeform_tmp' }] },
        { remove_fields: ['b'], add_fields: [{ name: 'c', description: 'C' }] },
      ],
      definition,
      descriptionsKnown: true,
    });
    expect(plannedRequests(change)).toEqual([
      {
        service: 'parser',
        method: 'PATCH',
        path: '/parsers/p%2F1/4',
        body: { rename_fields: [{ name: 'a', new_name: 'a__scrapeform_tmp' }] },
      },
      {
        service: 'parser',
        method: 'PATCH',
        path: '/parsers/p%2F1/5',
        body: { remove_fields: ['b'], add_fields: [{ name: 'c', description: 'C' }] },
        chained: true,
      },
    ]);
  });

  it('parser replace: POST that waits, then DELETE of the old parser', () => {
    expect(plannedRequests(parser({ action: 'replace', finishing: false, id: 'p-old', definition }))).toEqual(
      [
        { service: 'parser', method: 'POST', path: '/parsers', body: createBody, waitAfter: true },
        { service: 'parser', method: 'DELETE', path: '/parsers/p-old' },
      ],
    );
  });

  it('finishing a replace: DELETE of the old parser, or nothing when it is gone', () => {
    const finishing = { action: 'replace', finishing: true, id: 'p-new', version: 0, definition } as const;
    expect(plannedRequests(parser({ ...finishing, oldId: 'p-old' }))).toEqual([
      { service: 'parser', method: 'DELETE', path: '/parsers/p-old' },
    ]);
    expect(plannedRequests(parser({ ...finishing, oldId: null }))).toEqual([]);
  });

  it('parser delete, adopt and forget', () => {
    expect(plannedRequests(parser({ action: 'delete', id: 'p-1' }))).toEqual([
      { service: 'parser', method: 'DELETE', path: '/parsers/p-1' },
    ]);
    expect(plannedRequests(parser({ action: 'adopt', id: 'p-1', version: 3, definition }))).toEqual([]);
    expect(plannedRequests(parser({ action: 'forget', id: 'p-1' }))).toEqual([]);
  });

  it('project create (with the first run time), update, archive, adopt, forget', () => {
    const payload = { name: 'nightly', projectType: 'urls', schedulingEnabled: false };
    expect(
      plannedRequests(
        project({ action: 'create', id: null, definition: payload, scheduledAt: '2099-01-01T00:00:00Z' }),
      ),
    ).toEqual([
      {
        service: 'pipeline',
        method: 'POST',
        path: '/api/projects',
        body: { ...payload, scheduledAt: '2099-01-01T00:00:00Z' },
      },
    ]);
    expect(
      plannedRequests(
        project({ action: 'update', id: 7, changed: { webhookOutput: null }, definition: payload }),
      ),
    ).toEqual([
      { service: 'pipeline', method: 'PATCH', path: '/api/projects/7', body: { webhookOutput: null } },
    ]);
    expect(plannedRequests(project({ action: 'archive', id: 7 }))).toEqual([
      { service: 'pipeline', method: 'DELETE', path: '/api/projects/7' },
    ]);
    expect(plannedRequests(project({ action: 'adopt', id: 7, definition: payload }))).toEqual([]);
    expect(plannedRequests(project({ action: 'forget', id: 7 }))).toEqual([]);
  });
});

describe('changeRecord: what apply records, as the plan shows it', () => {
  it('parsers: the base version, the definition, whether descriptions are known and whether it generates', () => {
    expect(changeRecord(parser({ action: 'create', id: null, definition, regenerates: true }))).toEqual({
      kind: 'Parser',
      baseVersion: null,
      definition,
      descriptionsKnown: true,
      generates: true,
    });
    expect(changeRecord(parser({ action: 'adopt', id: 'p-1', version: 3, definition }))).toEqual({
      kind: 'Parser',
      baseVersion: 3,
      definition,
      descriptionsKnown: false,
      generates: false,
    });
    expect(
      changeRecord(
        parser({ action: 'replace', finishing: true, id: 'p-new', oldId: null, version: 2, definition }),
      ),
    ).toEqual({ kind: 'Parser', baseVersion: 2, definition, descriptionsKnown: true, generates: false });
    expect(changeRecord(parser({ action: 'delete', id: 'p-1' }))).toEqual({ kind: 'none' });
  });

  it('projects: the definition, or nothing for an archive', () => {
    expect(changeRecord(project({ action: 'adopt', id: 7, definition: { name: 'n' } }))).toEqual({
      kind: 'Project',
      definition: { name: 'n' },
    });
    expect(changeRecord(project({ action: 'archive', id: 7 }))).toEqual({ kind: 'none' });
  });
});

describe('toResourceChangeJson', () => {
  it('writes the keys in the documented order, input_summary last and only when set', () => {
    const json = toResourceChangeJson(project({ action: 'archive', id: 7 }));
    expect(Object.keys(json)).toEqual([
      'address',
      'kind',
      'name',
      'id',
      'action',
      'reasons',
      'regenerates',
      'destructive',
      'requests',
      'field_changes',
      'breaking',
      'record',
    ]);
    const summarised = toResourceChangeJson(
      project({ action: 'create', id: null, definition: {}, input_summary: '3 entries' }),
    );
    expect(Object.keys(summarised).at(-1)).toBe('input_summary');
  });

  it('writes origin after reasons, only for a change that has one', () => {
    const origin = 'teams/nightly.yaml:1, ProjectTemplate "nightly" at templates/crawl.yaml:1';
    const json = toResourceChangeJson(project({ action: 'archive', id: 7, origin }));
    expect(Object.keys(json).slice(5, 8)).toEqual(['reasons', 'origin', 'regenerates']);
    expect(json.origin).toBe(origin);
  });
});
