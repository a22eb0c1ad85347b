import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { listUnmanaged } from '../../src/plan/unmanaged.js';
import type { State } from '../../src/state/model.js';
import { applyWorkspace } from '../../src/workspace/apply-workspace.js';
import { openWorkspace } from '../../src/workspace/open-workspace.js';
import { planWorkspace } from '../../src/workspace/plan-workspace.js';
import { BUILT_CLI, emulatorEnv } from '../helpers/child-cli.js';

const KEY = 'random-kill-key';
const SEED = 19;
const KILLS = 30;
const KILLS_PER_STAGE = 6;
/** How long the emulator holds each answer after acting: every kill below lands inside such a window. */
const HELD_MS = 250;

const BOOK_A = 'https://books.example/catalogue/a-light-in-the-attic_1000/index.html';
const BOOK_B = 'https://books.example/catalogue/tipping-the-velvet_999/index.html';
const BOOK_C = 'https://books.example/catalogue/soumission_998/index.html';

/** mulberry32: the kill moments and choices are the same on every run of the suite. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Stage {
  files: Record<string, string>;
  parsers: Record<string, string[]>;
  projects: Record<string, string>;
}

const TITLE = 'Book title from the main heading';
const STOCK = 'Stock availability text';

/**
 * Stages, each one every kind of change from the one before: parser creates and deletes (`extra`), replaces
 * (`books`' urls), updates that regenerate and swaps through temporary names (`catalogue`), project creates,
 * updates and archives.
 */
function stage(k: number): Stage {
  const swappedNow = k % 2 === 1;
  const catalogue = [
    'kind: Parser',
    'name: catalogue',
    `urls: [${BOOK_A}, ${BOOK_B}]`,
    'fields:',
    swappedNow
      ? `  availability: { description: ${TITLE}, selector: h1, renamed_from: title }\n  title: { description: ${STOCK}, renamed_from: availability }`
      : k === 0
        ? `  title: { description: ${TITLE}, selector: h1 }\n  availability: { description: ${STOCK} }`
        : `  title: { description: ${TITLE}, selector: h1, renamed_from: availability }\n  availability: { description: ${STOCK}, renamed_from: title }`,
    `  price: { description: Price (stage ${k}), type: number }`,
    ...(k % 3 === 1 ? ['  upc: { description: UPC code, selector: td.upc }'] : []),
  ].join('\n');
  const books = `kind: Parser\nname: books\nurls: [${k % 2 === 0 ? `${BOOK_A}, ${BOOK_B}` : `${BOOK_A}, ${BOOK_C}`}]\nfields:\n  title: { description: Title, selector: h1 }\n`;
  const extra = `kind: Parser\nname: extra\nurls: [${BOOK_B}]\nfields:\n  title: { description: Heading }\n`;
  const projects = [k, k + 1, k + 2].map((n) => ({
    name: `crawl-${n}`,
    interval: (n + k) % 2 === 0 ? 'daily' : 'hourly',
  }));
  const files: Record<string, string> = {
    'catalogue.yaml': `${catalogue}\n`,
    'books.yaml': books,
    'projects.yaml': projects
      .map(
        (p) =>
          `kind: Project\nname: ${p.name}\nprojectType: urls\nprojectInput: { type: list, list: [${BOOK_A}] }\nscrapingInterval: ${p.interval}\nscheduledAt: "2099-01-01T00:00:00Z"\n`,
      )
      .join('---\n'),
  };
  if (k % 2 === 1) files['extra.yaml'] = extra;
  const fieldsOfCatalogue = ['availability', 'price', 'title', ...(k % 3 === 1 ? ['upc'] : [])];
  return {
    files,
    parsers: {
      books: ['title'],
      catalogue: fieldsOfCatalogue,
      ...(k % 2 === 1 ? { extra: ['title'] } : {}),
    },
    projects: Object.fromEntries(projects.map((p) => [p.name, p.interval])),
  };
}

let emulator: RunningEmulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 30, seed: SEED });
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-kills-'));
});
afterAll(async () => emulator.close());

function env(): NodeJS.ProcessEnv {
  return emulatorEnv(emulator.url, KEY);
}

/** Changes whenever the services act on a create, update, delete or archive (not on a generation finishing). */
function fingerprint(): string {
  const parsers = [...emulator.parsers.parsers.values()].map(
    (p) =>
      `${p.id}:${p.versions.length}:${
        p.versions
          .at(-1)
          ?.fields.map((f) => f.name)
          .join(',') ?? ''
      }`,
  );
  const projects = [...emulator.projects.projects.values()].map((p) => JSON.stringify(p));
  return JSON.stringify([parsers, projects]);
}

/**
 * Starts apply and SIGKILLs it `delayMs` after the services acted for the `acts`-th time, while that call's answer
 * is still held. Returns false when the run ended first (nothing left to do).
 */
async function applyAndKill(acts: number, delayMs: number): Promise<boolean> {
  const child = spawn(
    process.execPath,
    [BUILT_CLI, 'apply', 'manifests', '--auto-approve', '--allow-destroy'],
    {
      cwd: dir,
      env: env(),
      stdio: 'ignore',
    },
  );
  let ended = false;
  const exited = new Promise<void>((resolve) =>
    child.on('close', () => {
      ended = true;
      resolve();
    }),
  );
  let last = fingerprint();
  let seen = 0;
  while (!ended && seen < acts) {
    await new Promise((r) => setTimeout(r, 3));
    const now = fingerprint();
    if (now !== last) {
      seen++;
      last = now;
    }
  }
  if (!ended) await new Promise((r) => setTimeout(r, delayMs));
  const killed = !ended && child.kill('SIGKILL');
  await exited;
  return killed;
}

/**
 * Apply to the end without faults (in-process: the library the CLI calls, taking over the dead run's lock); then
 * the next plan is empty and shows nothing unmanaged, state is valid, and live objects are the declared ones.
 */
/**
 * The addresses of a refusal to send again a call marked sent (`apply.recreate-not-approved`), once the service is
 * checked as a user would before passing --recreate: no object of a create's name, no version of a parser past the
 * one its PATCH was based on. A kill between a call's mark in the journal (sent-journal.ts) and the call going out
 * leaves it so (docs/concepts.md, Crash safety: the safe side); any other error is the test's failure.
 */
async function neverSent(error: unknown): Promise<string[]> {
  const { code, details } = error as { code?: string; details?: { addresses?: string[] } };
  if (code !== 'apply.recreate-not-approved' || details?.addresses === undefined) throw error;
  const state = JSON.parse(await readFile(path.join(dir, '.scrapeform/state.json'), 'utf8')) as State;
  for (const address of details.addresses) {
    const name = address.slice(address.indexOf('.') + 1);
    const recorded = state.resources[address];
    // A replace's create makes a parser of the name the recorded one has (and a swap, of a name another holds):
    // only a parser state knows nothing of is one the create made.
    const known = new Set(
      Object.values(state.resources).flatMap((r) =>
        r.kind === 'Parser' ? [r.id, r.replacing?.oldId, ...(r.replacing?.also ?? [])] : [],
      ),
    );
    const parser = [...emulator.parsers.parsers.values()].find((p) => p.name === name && !known.has(p.id));
    const patched = [...emulator.parsers.parsers.values()].find((p) => p.name === name);
    if (recorded?.kind === 'Parser' && recorded.patching !== undefined) {
      expect(Math.max(...(patched?.versions.map((v) => v.version) ?? [])), address).toBe(
        recorded.patching.from,
      );
    } else if (address.startsWith('parser.')) {
      expect(parser, address).toBeUndefined();
    } else {
      expect(
        [...emulator.projects.projects.values()].map((p) => p.name),
        address,
      ).not.toContain(name);
    }
  }
  return details.addresses;
}

async function expectConverged(wanted: Stage): Promise<void> {
  emulator.setFaults({ responseDelayMs: 0 });
  const ws = await openWorkspace({
    paths: [path.join(dir, 'manifests')],
    env: {
      SCRAPERAPI_API_KEY: KEY,
      SCRAPEFORM_PARSER_URL: emulator.url,
      SCRAPEFORM_PIPELINE_URL: emulator.url,
    },
    statePath: path.join(dir, '.scrapeform', 'state.json'),
  });
  try {
    const options = { autoApprove: true, allowDestroy: true, pollMinMs: 5, pollMaxMs: 20 };
    const applied = await applyWorkspace(ws, options).catch(async (error: unknown) =>
      applyWorkspace(ws, { ...options, recreate: await neverSent(error) }),
    );
    expect(applied.result?.results.filter((r) => !r.ok) ?? []).toEqual([]);
    const { plan, live, state } = await planWorkspace(ws);
    expect(plan.resource_changes.map((c) => `${c.address} ${c.action}`)).toEqual([]);
    expect(plan.drift).toEqual([]);
    expect(listUnmanaged(live, state, ws.manifests)).toEqual({ parsers: [], projects: [] });
  } finally {
    await ws.close();
  }
  const state = JSON.parse(await readFile(path.join(dir, '.scrapeform/state.json'), 'utf8')) as State;

  // State is valid: every object recorded whole, nothing half done, no intent left.
  expect([state.format_version, typeof state.serial, typeof state.lineage]).toEqual([1, 'number', 'string']);
  expect(state.intents).toBeUndefined();
  for (const resource of Object.values(state.resources)) {
    if (resource.kind === 'Parser') {
      expect(resource).not.toHaveProperty('pending');
      expect(resource).not.toHaveProperty('replacing');
      expect(resource).not.toHaveProperty('failed');
      expect(resource.descriptionsKnown).toBe(true);
      expect(resource.definition?.fields.map((f) => f.name).sort()).toEqual(wanted.parsers[resource.name]);
    }
  }

  // Live objects are the declared ones: no duplicate, no orphan (each one is in state).
  const parsers = [...emulator.parsers.parsers.values()];
  expect(parsers.map((p) => p.name).sort()).toEqual(Object.keys(wanted.parsers).sort());
  for (const p of parsers) {
    expect(p.versions.at(-1)?.status).toBe('FINISHED');
    expect(
      p.versions
        .at(-1)
        ?.fields.map((f) => f.name)
        .sort(),
    ).toEqual(wanted.parsers[p.name]);
  }
  const projects = [...emulator.projects.projects.values()];
  expect(Object.fromEntries(projects.map((p) => [p.name, p.scrapingInterval]))).toEqual(wanted.projects);
  expect(projects.length).toBe(Object.keys(wanted.projects).length);
  const live = [...parsers.map((p) => p.id), ...projects.map((p) => String(p.id))].sort();
  expect(
    Object.values(state.resources)
      .map((r) => String(r.id))
      .sort(),
  ).toEqual(live);
}

describe('apply killed at random moments (seeded), with answers held after the services acted', () => {
  it(`${KILLS} SIGKILLs across creates, updates, swaps, replaces, deletes and archives converge with zero orphans`, async () => {
    const random = seeded(SEED);
    let kills = 0;
    // Stage after stage until enough kills landed (a run that finishes before its kill ends its stage early).
    for (let k = 0; kills < KILLS && k < 12; k++) {
      const wanted = stage(k);
      await rm(path.join(dir, 'manifests'), { recursive: true, force: true });
      await mkdir(path.join(dir, 'manifests'));
      for (const [name, text] of Object.entries(wanted.files))
        await writeFile(path.join(dir, 'manifests', name), text);
      let killsHere = 0;
      for (let attempt = 0; attempt < 3 * KILLS_PER_STAGE && killsHere < KILLS_PER_STAGE; attempt++) {
        emulator.setFaults({ responseDelayMs: HELD_MS, responseDelayMethods: ['POST', 'PATCH', 'DELETE'] });
        // Killed after the first or second act of this run, before its answer arrives.
        const acts = 1 + Math.floor(random() * 2);
        const delay = Math.floor(random() * (HELD_MS - 60));
        if (await applyAndKill(acts, delay)) killsHere++;
        else break;
      }
      kills += killsHere;
      await emulator.idle();
      await expectConverged(wanted);
    }
    expect(kills).toBeGreaterThanOrEqual(KILLS);
  }, 240_000);
});
