import type { LiveParserDetails, LiveProject } from '../../src/api/live.js';

/**
 * A project as the service answers it: a daily list of one URL, scheduled, JSON output, no webhook, the default
 * notifications and no scraping parameters (whatever `overrides` change).
 */
export function liveProject(id: number, name: string, overrides: Partial<LiveProject> = {}): LiveProject {
  return {
    id,
    name,
    projectType: 'urls',
    projectInput: { type: 'list', list: ['https://books.example/1.html'] },
    scrapingInterval: 'daily',
    schedulingEnabled: true,
    output_format: 'JSON',
    webhookOutput: null,
    notificationConfig: { notifyOnSuccess: 'never', notifyOnFailure: 'with_every_run' },
    apiParams: {},
    ...overrides,
  };
}

/**
 * Details of version `version` of parser p-1 "books" as the service answers them: FINISHED, with these field
 * names (output type `text`) and no example results (whatever `overrides` change).
 */
export function liveDetails(
  version: number,
  names: string[] = [],
  overrides: Partial<LiveParserDetails> = {},
): LiveParserDetails {
  return {
    id: 'p-1',
    name: 'books',
    version,
    status: 'FINISHED',
    error: null,
    createdAt: null,
    generatedAt: null,
    exampleResult: null,
    fields: names.map((name) => ({ name, type: 'text' })),
    ...overrides,
  };
}
