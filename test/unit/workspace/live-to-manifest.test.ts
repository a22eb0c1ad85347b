import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { expectedResults, importParser, importProject } from '../../../src/workspace/live-to-manifest.js';
import type { LiveParserDetails, LiveProject } from '../../../src/api/live.js';

const PAGE = 'https://shop.example/p/1';

describe('expect checks written by import', () => {
  it('up to three present text fields per page, as presence patterns; volatile and numeric values left out', () => {
    expect(
      expectedResults([
        {
          url: PAGE,
          result: {
            price: '£51.77',
            name: 'Blue kettle',
            updated_at: 'yesterday',
            released: '2026-11-01',
            stars: 4,
            in_catalogue: true,
            blank: '  ',
            missing: null,
            tags: ['a'],
            brand: 'Acme',
            sku: 'K-1',
          },
        },
      ]),
    ).toEqual([{ url: PAGE, result: { name: '~\\S', in_catalogue: true, brand: '~\\S' } }]);
  });

  it('a page with nothing stable to check gets no check', () => {
    expect(expectedResults([{ url: PAGE, result: { price: '$3', count: 2 } }])).toEqual([]);
  });
});

describe('importParser', () => {
  const details: LiveParserDetails = {
    id: 'p1',
    name: 'kettles',
    version: 2,
    status: 'FINISHED',
    error: null,
    createdAt: null,
    generatedAt: null,
    exampleResult: [{ url: PAGE, result: { name: 'Blue kettle', reviews: [{ author: 'Ann' }] } }],
    fields: [{ name: 'name' }, { name: 'reviews', type: 'array' }, { name: 'reviews.author' }],
  };

  it('marks every value the service does not return as unknown, and writes the checks into the manifest', () => {
    const imported = importParser('out', details);
    if (typeof imported === 'string') throw new Error(imported);
    expect(imported.resource).toMatchObject({
      version: 2,
      descriptionsKnown: false,
      unknown: {
        scraperParams: true,
        descriptions: ['name', 'reviews', 'reviews.author'],
        selectors: ['name', 'reviews', 'reviews.author'],
        types: ['name', 'reviews.author'],
      },
    });
    expect((parse(imported.text) as { expect: unknown }).expect).toEqual([
      { url: PAGE, result: { name: '~\\S' } },
    ]);
    expect(imported.text).toContain(
      '# `scrapeform plan --accept-unknown parser.kettles` records them with no call',
    );
  });
});

describe('importProject', () => {
  const LIVE: LiveProject = {
    id: 522,
    name: 'weekly',
    projectType: 'urls',
    projectInput: { type: 'list', list: [PAGE] },
    scrapingInterval: 'weekly',
    schedulingEnabled: true,
    projectOutput: { type: 'save' },
  };
  const skipped = (live: LiveProject): unknown => importProject('/tmp/m', live, 'weekly');

  it('writes the schedule and input as the service reports them, and a webhook reported inside projectOutput', () => {
    const imported = importProject(
      '/tmp/m',
      { ...LIVE, projectOutput: { type: 'webhook', url: 'https://hooks.example/in' } },
      'weekly',
    );
    if (typeof imported === 'string') throw new Error(imported);
    expect(parse(imported.text)).toMatchObject({
      projectInput: { type: 'list', list: [PAGE] },
      scrapingInterval: 'weekly',
      schedulingEnabled: true,
      webhookOutput: { url: 'https://hooks.example/in' },
    });
    expect(imported.resource).toMatchObject({
      definition: { schedulingEnabled: true, webhookOutput: { url: 'https://hooks.example/in' } },
    });
  });

  it('passes over a project whose answer leaves out its schedule or input, instead of writing a guess', () => {
    const { scrapingInterval: _interval, ...noInterval } = LIVE;
    expect(skipped(noInterval)).toBe(
      'skipped project "weekly" (522): its answer does not give its schedule (scrapingInterval and schedulingEnabled), so it cannot be written',
    );
    const { schedulingEnabled: _enabled, ...noSwitch } = LIVE;
    expect(skipped(noSwitch)).toMatch(/its answer does not give its schedule/);
    expect(skipped({ ...LIVE, projectInput: { type: 'webhook', webhookUrl: 'https://x.example/l' } })).toBe(
      'skipped project "weekly" (522): its answer does not give its input (a list, or a webhook_input URL), so it cannot be written',
    );
  });

  it('passes over a scrape-once project with scheduling on, which a manifest cannot declare', () => {
    expect(skipped({ ...LIVE, scrapingInterval: 'once' })).toBe(
      'skipped project "weekly" (522): it scrapes once with scheduling on, which a manifest cannot declare (a manifest without scrapingInterval turns scheduling off)',
    );
    const once = importProject(
      '/tmp/m',
      { ...LIVE, scrapingInterval: 'once', schedulingEnabled: false },
      'weekly',
    );
    if (typeof once === 'string') throw new Error(once);
    expect(parse(once.text)).not.toHaveProperty('scrapingInterval');
    expect(parse(once.text)).not.toHaveProperty('schedulingEnabled');
    expect(once.resource).toMatchObject({ definition: { schedulingEnabled: false } });
  });

  it('passes over a value a manifest cannot hold', () => {
    expect(skipped({ ...LIVE, scrapingInterval: 'fortnightly' })).toMatch(
      /^skipped project "weekly" \(522\): a value a manifest cannot hold \(scrapingInterval: /,
    );
  });
});

describe('live values holding ${', () => {
  const TEMPLATED = 'https://shop.example/p?q=${HOME}';

  it('are written $${ wherever import writes a string: urls, expect, lists, maps, parameters', () => {
    const parser = importParser('out', {
      id: 'p2',
      name: 'kettles-${X}',
      version: 1,
      status: 'FINISHED',
      error: null,
      createdAt: null,
      generatedAt: null,
      exampleResult: [{ url: TEMPLATED, result: { name: 'Blue kettle' } }],
      fields: [{ name: 'name' }],
    });
    if (typeof parser === 'string') throw new Error(parser);
    expect(parse(parser.text)).toMatchObject({
      name: 'kettles-$${X}',
      urls: ['https://shop.example/p?q=$${HOME}'],
      expect: [{ url: 'https://shop.example/p?q=$${HOME}' }],
    });
    // State records the live text itself.
    expect(parser.resource).toMatchObject({ name: 'kettles-${X}', definition: { urls: [TEMPLATED] } });
    const project = importProject(
      'out',
      {
        id: 7,
        name: 'n',
        projectType: 'urls',
        projectInput: { type: 'list', list: [TEMPLATED, 'https://shop.example/$${kept}'] },
        scrapingInterval: 'daily',
        schedulingEnabled: true,
        webhookOutput: { url: 'https://hooks.example/${HOOK}' },
        apiParams: { country_code: '${CC}' },
      },
      'n',
    );
    if (typeof project === 'string') throw new Error(project);
    expect(parse(project.text)).toMatchObject({
      projectInput: { list: ['https://shop.example/p?q=$${HOME}', 'https://shop.example/$$${kept}'] },
      webhookOutput: { url: 'https://hooks.example/$${HOOK}' },
      apiParams: { country_code: '$${CC}' },
    });
  });

  it('in a key, which no manifest can hold, pass the object over with why', () => {
    const parser = importParser('out', {
      id: 'p3',
      name: 'kettles',
      version: 1,
      status: 'FINISHED',
      error: null,
      createdAt: null,
      generatedAt: null,
      exampleResult: [],
      fields: [{ name: 'price_${CUR}' }],
    });
    expect(parser).toBe(
      'skipped parser "kettles" (p3): its field "price_${CUR}" has ${ in its name, which a manifest key cannot hold',
    );
    const project = importProject(
      'out',
      {
        id: 8,
        name: 'n',
        projectType: 'urls',
        projectInput: { type: 'list', list: [PAGE] },
        scrapingInterval: 'daily',
        schedulingEnabled: true,
        apiParams: { '${KEY}': 'x' },
      },
      'n',
    );
    expect(project).toBe(
      'skipped project "n" (8): the key "${KEY}" has ${ in it, which a manifest key cannot hold',
    );
  });
});
