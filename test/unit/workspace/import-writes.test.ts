import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScrapeformError } from '../../../src/errors.js';
import type { StateBackend } from '../../../src/state/backend.js';
import type { State } from '../../../src/state/model.js';
import { writeImported } from '../../../src/workspace/import-writes.js';
import type { ImportedObject } from '../../../src/workspace/live-to-manifest.js';
import { parserState, stateOf } from '../../helpers/state.js';

const UNREACHABLE = new ScrapeformError(
  'state.unreachable',
  'the state database db did not answer: timeout',
  {
    hint: 'check that it runs',
  },
);

/** A state backend whose write fails as a COMMIT with no answer does: done (`stored`) or not, the caller cannot tell. */
function failingBackend(options: { stored: boolean; readFails: boolean }): StateBackend & { kept: State } {
  const backend = {
    location: 'db',
    kept: stateOf({}),
    read: async () => {
      if (options.readFails) throw UNREACHABLE;
      return structuredClone(backend.kept);
    },
    write: async (state: State) => {
      if (options.stored) backend.kept = structuredClone(state);
      throw UNREACHABLE;
    },
    lock: () => Promise.reject(new Error('not used')),
    forceUnlock: () => Promise.reject(new Error('not used')),
  };
  return backend;
}

async function planned(): Promise<{ dir: string; objects: ImportedObject[] }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-import-writes-'));
  const objects = ['authors', 'books'].map((name) => ({
    file: path.join(dir, `parser-${name}.yaml`),
    text: `kind: Parser\nname: ${name}\n`,
    address: `parser.${name}`,
    resource: parserState({ id: `p-${name}`, name, definition: { fields: {} } as never }),
  }));
  return { dir, objects };
}

describe('writeImported when the state write fails', () => {
  it('removes the manifests when the state, read again, records none of them', async () => {
    const { dir, objects } = await planned();
    const backend = failingBackend({ stored: false, readFails: false });
    const error = await writeImported(backend, stateOf({}), objects).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScrapeformError);
    expect((error as ScrapeformError).code).toBe('state.unreachable');
    expect((error as ScrapeformError).message).toBe(
      'the state database db did not answer: timeout; the manifests import wrote were removed, and nothing was imported',
    );
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps them when the write was done after all (the state read again records them): never plans deleting', async () => {
    const { dir, objects } = await planned();
    const backend = failingBackend({ stored: true, readFails: false });
    const error = (await writeImported(backend, stateOf({}), objects).catch(
      (e: unknown) => e,
    )) as ScrapeformError;
    expect(error.message).toBe(
      `the state database db did not answer: timeout; the state read again records them, so the manifests import wrote are kept: ${objects[0]?.file}, ${objects[1]?.file}`,
    );
    expect(error.details).toEqual({ kept: objects.map((o) => o.file) });
    expect(await readdir(dir)).toEqual(['parser-authors.yaml', 'parser-books.yaml']);
    expect(Object.keys(backend.kept.resources)).toEqual(['parser.authors', 'parser.books']);
  });

  it('keeps them when the state cannot be read again to tell', async () => {
    const { dir, objects } = await planned();
    const backend = failingBackend({ stored: true, readFails: true });
    const error = (await writeImported(backend, stateOf({}), objects).catch(
      (e: unknown) => e,
    )) as ScrapeformError;
    expect(error.message).toBe(
      `the state database db did not answer: timeout; the state could not be read again to tell whether it records them, so the manifests import wrote are kept: ${objects[0]?.file}, ${objects[1]?.file}`,
    );
    expect(error.hint).toBe(
      'once the state can be read, run plan: it shows whether their objects are managed, or to be adopted by name; check that it runs',
    );
    expect(await readdir(dir)).toEqual(['parser-authors.yaml', 'parser-books.yaml']);
  });
});
