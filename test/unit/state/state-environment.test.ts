import { describe, expect, it } from 'vitest';
import { ScrapeformError } from '../../../src/errors.js';
import type { StateBackend } from '../../../src/state/backend.js';
import type { State } from '../../../src/state/model.js';
import {
  checkingEnvironment,
  checkStateEnvironment,
  recordedEnvironment,
  withEnvironmentRecorded,
} from '../../../src/state/state-environment.js';
import { stateOf } from '../../helpers/state.js';

const staging = { name: 'staging', others: ['prod'] };

describe('the environment that last applied a state', () => {
  it('is recorded once, kept while it is the same, and replaced by another name', () => {
    const blank = stateOf({});
    expect(withEnvironmentRecorded(blank, undefined)).toBe(blank);
    const prod = withEnvironmentRecorded(blank, 'prod');
    expect(recordedEnvironment(prod)).toBe('prod');
    expect(withEnvironmentRecorded(prod, 'prod')).toBe(prod);
    expect(recordedEnvironment(withEnvironmentRecorded(prod, 'production'))).toBe('production');
  });

  it("another declared environment's state is refused with its name, the location and a way out", () => {
    const prod = withEnvironmentRecorded(stateOf({}), 'prod');
    let thrown: unknown;
    try {
      checkStateEnvironment(prod, staging, 'states/one.json');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ScrapeformError);
    const error = thrown as ScrapeformError;
    expect(error.code).toBe('state.other-environment');
    expect(error.message).toBe(
      `the state states/one.json was last applied by environment "prod", and this run is for environment "staging": its manifests would plan deleting prod's objects, and its key act on them; nothing was changed`,
    );
    expect(error.hint).toContain('rename or remove environment "prod" in scrapeform.yaml');
    expect(error.details).toEqual({ recorded: 'prod', environment: 'staging' });
  });

  it('its own, none recorded, one no longer declared, or a value of another shape: taken as it is', () => {
    const blank = stateOf({});
    for (const state of [
      blank,
      withEnvironmentRecorded(blank, 'staging'),
      withEnvironmentRecorded(blank, 'qa'),
      ...[null, 7, '', { name: 'prod' }].map(
        (environment) => ({ ...blank, environment }) as unknown as State,
      ),
    ])
      expect(checkStateEnvironment(state, staging, 'state.json')).toBe(state);
  });

  it("a backend checks every read, and without a run's environment is left as it is", async () => {
    let stored = withEnvironmentRecorded(stateOf({}), 'staging');
    const backend = {
      location: 'state.json',
      read: async () => stored,
      write: async (state: State) => state,
    } as unknown as StateBackend;
    expect(checkingEnvironment(backend, undefined)).toBe(backend);
    const checked = checkingEnvironment(backend, staging);
    await expect(checked.read()).resolves.toBe(stored);
    stored = withEnvironmentRecorded(stored, 'prod');
    await expect(checked.read()).rejects.toMatchObject({ code: 'state.other-environment' });
  });
});
