import { describe, expect, it } from 'vitest';
import { ParsersClient } from '../../src/api/parsers-client.js';
import { ProjectsClient } from '../../src/api/projects-client.js';
import { Transport } from '../../src/api/transport.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import { bookParser, TestWorkspace } from '../helpers/workspace.js';

const MANIFESTS_V1: Record<string, string> = {
  'books.yaml': bookParser(
    '  title: { description: Book title, selector: h1 }\n  price: { description: Price, type: number }\n',
  ),
  'news.yaml':
    'kind: Parser\nname: news\nurls: [https://news.example/2026/03/harbour-reopens.html]\nfields:\n  headline: { description: Headline, selector: h1 }\n',
  'projects.yaml': [1, 2, 3]
    .map(
      (n) =>
        `kind: Project\nname: crawl-${n}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/catalogue/page-${n}.html] }\nscrapingInterval: daily\nscheduledAt: "2099-01-01T00:00:00Z"\n`,
    )
    .join('---\n'),
};
const MANIFESTS_V2: Record<string, string> = {
  ...MANIFESTS_V1,
  'books.yaml': bookParser(
    '  headline: { description: Book title, selector: h1, renamed_from: title }\n  price: { description: Price incl. tax, type: number }\n  upc: { description: UPC, selector: td.upc }\n',
  ),
  // Another page: a replace (a create, a wait, a delete) under the same faults.
  'news.yaml':
    'kind: Parser\nname: news\nurls: [https://news.example/2026/04/city-budget-vote.html]\nfields:\n  headline: { description: Headline, selector: h1 }\n',
  'projects.yaml': [1, 2]
    .map(
      (n) =>
        `kind: Project\nname: crawl-${n}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/catalogue/page-${n}.html] }\nscrapingInterval: hourly\nscheduledAt: "2099-01-01T00:00:00Z"\n`,
    )
    .join('---\n'),
};

/**
 * 20 seeded runs with 10% 5xx, 10% 429, dropped connections before and after the service acted, and added
 * latency, over creates, updates with renames, a replace and an archive: apply is repeated until the plan is
 * empty, and must get there with no duplicate and no orphan (every live object recorded in state).
 */
describe('apply under injected faults', () => {
  it.each(Array.from({ length: 20 }, (_, i) => i + 1))(
    'seed %i converges with no duplicates and no orphans',
    async (seed) => {
      const h = await startTestEmulator({ seed, generationDelayMs: 5 });
      try {
        const transport = new Transport({
          apiKey: EMULATOR_KEY,
          retry: { maxRetries: 8, baseDelayMs: 2, maxDelayMs: 20 },
        });
        const faulty = {
          ...h,
          parsers: new ParsersClient(transport, h.emulator.url),
          projects: new ProjectsClient(transport, h.emulator.url),
        };
        const ws = await TestWorkspace.create(faulty);
        h.emulator.setFaults({
          errorRate: 0.1,
          errorStatus: 503,
          rateLimitRate: 0.1,
          retryAfterSeconds: 0,
          dropRate: 0.05,
          dropAfterRate: 0.05,
          latencyMs: 1,
        });
        for (const manifests of [MANIFESTS_V1, MANIFESTS_V2]) {
          await ws.write(manifests);
          let converged = false;
          for (let attempt = 0; attempt < 10 && !converged; attempt++) {
            try {
              const plan = await ws.plan();
              if (plan.status === 'no_changes') converged = true;
              else await ws.applyChanges(plan);
            } catch {
              // A plan whose reads failed even after retries: try again, as a CI job would be re-run.
            }
          }
          expect(converged).toBe(true);
        }
        h.emulator.setFaults({ errorRate: 0, rateLimitRate: 0, dropRate: 0, dropAfterRate: 0, latencyMs: 0 });
        const parsers = await h.parsers.list();
        const projects = await h.projects.list();
        expect(parsers.map((p) => p.name).sort()).toEqual(['books', 'news']);
        expect(projects.map((p) => p.name).sort()).toEqual(['crawl-1', 'crawl-2']);
        const books = await h.parsers.get(parsers.find((p) => p.name === 'books')?.id ?? '');
        expect(books.fields.map((f) => f.name)).toEqual(['headline', 'price', 'upc']);
        // Zero orphans: every live object is the one state records, and nothing is left half done.
        const state = await ws.state();
        expect(state.intents).toBeUndefined();
        expect(
          Object.values(state.resources)
            .map((r) => String(r.id))
            .sort(),
        ).toEqual([...parsers.map((p) => p.id), ...projects.map((p) => String(p.id))].sort());
        for (const r of Object.values(state.resources)) expect(r).not.toHaveProperty('replacing');
        expect(h.emulator.requestLog.some((e) => e.fault !== undefined)).toBe(true);
      } finally {
        await h.emulator.close();
      }
    },
  );
});
