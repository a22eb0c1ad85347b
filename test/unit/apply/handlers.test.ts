import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { handlerFor } from '../../../src/apply/apply-plan.js';
import type { ResourceChange } from '../../../src/plan/model.js';
import { parsePlanFile } from '../../../src/plan/plan-file.js';

const fixtures = path.resolve(import.meta.dirname, '../../fixtures/plan-json');

describe('the handler table', () => {
  it('has a handler for every change of the golden plans', async () => {
    const seen = new Set<string>();
    for (const name of ['fresh', 'history', 'failures']) {
      const text = await readFile(path.join(fixtures, `${name}.json`), 'utf8');
      for (const change of parsePlanFile(text, `${name}.json`).resource_changes) {
        expect(typeof handlerFor(change), `${name}: ${change.address}`).toBe('function');
        seen.add(`${change.kind} ${change.action}`);
      }
    }
    // The golden plans hold every kind and action but a project forget, checked on its own.
    const forget: ResourceChange = {
      kind: 'Project',
      action: 'forget',
      address: 'project.gone',
      name: 'gone',
      id: 9,
      reasons: ['archived outside scrapeform'],
      regenerates: false,
      destructive: false,
      field_changes: [],
      breaking: [],
    };
    expect(typeof handlerFor(forget)).toBe('function');
    expect([...seen].sort()).toEqual([
      'Parser adopt',
      'Parser create',
      'Parser delete',
      'Parser forget',
      'Parser replace',
      'Parser update',
      'Project adopt',
      'Project archive',
      'Project create',
      'Project update',
    ]);
  });

  it('is an internal error for a kind and action the plan types do not have', () => {
    const forged = { kind: 'Project', action: 'replace', address: 'project.x' } as unknown as ResourceChange;
    expect(() => handlerFor(forged)).toThrow('no handler for Project replace');
  });
});
