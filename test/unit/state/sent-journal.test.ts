import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClients } from '../../../src/api/create-clients.js';
import { applyPlan } from '../../../src/apply/apply-plan.js';
import { ScrapeformError } from '../../../src/errors.js';
import { checkRecreates } from '../../../src/plan/approval.js';
import { buildPlan, summarise } from '../../../src/plan/build-plan.js';
import type { ParserCreate, Plan } from '../../../src/plan/model.js';
import { FileStateBackend } from '../../../src/state/file-backend.js';
import { SentJournal } from '../../../src/state/sent-journal.js';
import type { State } from '../../../src/state/model.js';
import { desiredParser } from '../../helpers/desired.js';

/**
 * A create recorded ahead with the whole plan was marked `sent` in state only by the coalesced write after its POST:
 * a run killed in that window, or whose next write failed, left it reading as never sent, and the next plan, its
 * list lagging behind the create, made it again (a second parser, a second generation paid). With state in a file
 * the mark is appended to a journal beside it before the POST (sent-journal.ts), and reading state merges it in.
 */
let dir = '';
let file = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-sent-journal-'));
  file = path.join(dir, 'state.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const definition = { urls: ['https://books.example/a.html'], scraperParams: {}, fields: [] };
const intent = { kind: 'Parser' as const, name: 'books', definition, before: [] };

/** A state file holding an intent for parser.books not marked sent, and parser.old with a PATCH not marked sent. */
async function stateWithIntents(): Promise<State> {
  const state: State = {
    format_version: 1,
    serial: 3,
    lineage: 'L',
    resources: {
      'parser.old': {
        kind: 'Parser',
        id: 'p-9',
        name: 'old',
        version: 2,
        descriptionsKnown: true,
        definition,
        patching: { from: 2, definition },
      },
    },
    intents: { 'parser.books': intent },
  };
  await writeFile(file, JSON.stringify(state));
  return state;
}

describe('the journal of calls being sent, beside a state file', () => {
  it('its marks are merged into the state read: the intent and the PATCH, of the same lineage only', async () => {
    await stateWithIntents();
    const backend = new FileStateBackend(file);
    await backend.markSent([
      { address: 'parser.books', kind: 'create', sent: '2026-11-29T07:00:00.000Z', lineage: 'L' },
      { address: 'parser.old', kind: 'patch', sent: '2026-11-29T07:00:01.000Z', lineage: 'L' },
      { address: 'parser.books', kind: 'create', sent: '2026-11-29T07:00:02.000Z', lineage: 'other' },
    ]);
    // A line the kill cut short is skipped.
    await appendFile(`${file}.sent`, '{"address":"parser.gone","ki');
    const read = await new FileStateBackend(file).read();
    expect(read.intents?.['parser.books']?.sent).toBe('2026-11-29T07:00:00.000Z');
    expect(read.resources['parser.old']).toMatchObject({ patching: { sent: '2026-11-29T07:00:01.000Z' } });
  });

  it('a state write that carries every mark empties it', async () => {
    await stateWithIntents();
    const backend = new FileStateBackend(file);
    const state = await backend.read();
    (state.intents?.['parser.books'] as { sent?: string }).sent = 's';
    await backend.markSent([{ address: 'parser.books', kind: 'create', sent: 's', lineage: 'L' }]);
    expect((await stat(`${file}.sent`)).size).toBeGreaterThan(0);
    await backend.write(state);
    await expect(stat(`${file}.sent`)).rejects.toThrow(/ENOENT/);
  });

  it('two backends on one file (watch between its runs, another apply): marks of the first are never lost', async () => {
    // Review: a handle kept open wrote into a journal the other run had removed, and the marks went with it.
    const a = new FileStateBackend(file);
    const b = new FileStateBackend(file);
    await stateWithIntents();
    await a.markSent([{ address: 'parser.books', kind: 'create', sent: 'a1', lineage: 'L' }]);
    await a.write(await a.read());
    await b.markSent([{ address: 'parser.old', kind: 'patch', sent: 'b1', lineage: 'L' }]);
    await b.write(await b.read());
    await a.markSent([{ address: 'parser.books', kind: 'create', sent: 'a2', lineage: 'L' }]);
    expect(new SentJournal(file).read().map((m) => m.sent)).toEqual(['a2']);
  });

  it('marks appended after a state write was serialised are kept: that state does not carry them', async () => {
    const journal = new SentJournal(file);
    journal.append([{ address: 'parser.books', kind: 'create', sent: 's', lineage: 'L' }]);
    const serialisedAt = journal.length;
    journal.append([{ address: 'parser.old', kind: 'patch', sent: 't', lineage: 'L' }]);
    journal.clearUpTo(serialisedAt);
    expect(journal.read().map((m) => m.address)).toEqual(['parser.books', 'parser.old']);
    journal.clearUpTo(journal.length);
    expect(journal.read()).toEqual([]);
  });

  it('a journal left by a run that was killed is merged, then emptied by the next write of the state', async () => {
    await stateWithIntents();
    await writeFile(
      `${file}.sent`,
      `${JSON.stringify({ address: 'parser.books', kind: 'create', sent: 's', lineage: 'L' })}\n`,
    );
    const backend = new FileStateBackend(file);
    const state = await backend.read();
    expect(state.intents?.['parser.books']?.sent).toBe('s');
    await backend.write(state);
    await expect(stat(`${file}.sent`)).rejects.toThrow(/ENOENT/);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      intents: { 'parser.books': { sent: 's' } },
    });
  });
});

describe('apply marks a create recorded ahead as sent before its POST', () => {
  const books = desiredParser('books', [{ name: 'title', description: 'Book title' }], {
    urls: ['https://books.example/a.html'],
  });
  const create: ParserCreate = {
    address: 'parser.books',
    kind: 'Parser',
    name: 'books',
    action: 'create',
    id: null,
    reasons: ['not yet created'],
    definition: { urls: books.urls, scraperParams: {}, fields: books.fields },
    regenerates: true,
    destructive: false,
    field_changes: [],
    breaking: [],
  };
  const plan = {
    format_version: 1,
    status: 'changes',
    summary: summarise([create]),
    resource_changes: [create],
    drift: [],
    warnings: [],
    fingerprint: { state_lineage: '', state_serial: 0, live: {} },
  } as unknown as Plan;

  /** A file backend whose writes after the first fail as a full disk does. */
  class FillingDisk extends FileStateBackend {
    writes = 0;
    override async write(state: State): Promise<State> {
      if (++this.writes > 1) throw new ScrapeformError('state.io', 'no space left on the device (ENOSPC)');
      return super.write(state);
    }
  }

  it('the state write after the POST failing: the next plan, its list lagging, holds the create back for --recreate', async () => {
    const backend = new FillingDisk(file);
    let posts = 0;
    const parsers = {
      list: async () => [],
      create: async () => {
        posts++;
        // The answer comes after the write window: the write that would record the create fails.
        await new Promise((resolve) => setTimeout(resolve, 200));
        return { id: 'p-1', version: 0 };
      },
    };
    const failed = await applyPlan({
      plan,
      clients: { parsers, projects: {}, close: async () => undefined } as unknown as ApiClients,
      backend,
      state: await backend.read(),
      live: { parsers: [], projects: [] },
      pollMinMs: 1,
      noWait: true,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ code: 'state.io' });
    expect(posts).toBe(1);
    // The state file holds the intent as written ahead; the journal says its POST went out.
    const onDisk = await new FileStateBackend(file).read();
    expect(onDisk.intents?.['parser.books']?.sent).toEqual(expect.any(String));
    const next = buildPlan({
      parsers: [books],
      projects: [],
      state: onDisk,
      live: { parsers: [], details: {}, projects: [] },
    });
    expect(next.resource_changes.map((c) => c.action)).toEqual(['create']);
    expect(() => checkRecreates(next, [])).toThrow(
      expect.objectContaining({ code: 'apply.recreate-not-approved' }) as Error,
    );
  });
});
