import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspaceStatePath } from '../../../src/model/state-location.js';
import { createStateBackend } from '../../../src/state/create-backend.js';
import { checkWorkspaceName } from '../../../src/state/workspace-name.js';

describe('the state file of a workspace', () => {
  it('default keeps the given path; another workspace has its own folder beside it', () => {
    expect(workspaceStatePath(path.join('.scrapeform', 'state.json'), 'default')).toBe(
      path.join('.scrapeform', 'state.json'),
    );
    expect(workspaceStatePath(path.join('.scrapeform', 'state.json'), 'team-a')).toBe(
      path.join('.scrapeform', 'team-a', 'state.json'),
    );
    expect(workspaceStatePath(path.join('ops', 'prod.json'), 'Prod')).toBe(
      path.join('ops', 'Prod', 'prod.json'),
    );
    expect(createStateBackend(undefined, 'staging').location).toBe(
      path.join('.scrapeform', 'staging', 'state.json'),
    );
    expect(createStateBackend(undefined).location).toBe(path.join('.scrapeform', 'state.json'));
  });

  it.each(['', '..', '../prod', 'a/b', 'a\\b', '.hidden', 'x'.repeat(41), 'prod ', 'päd'])(
    'refuses the workspace name %j before any path is made of it',
    (name) => {
      expect(() => checkWorkspaceName(name)).toThrow(
        `workspace "${name}" must be 1 to 40 letters, digits, - or _`,
      );
      expect(() => createStateBackend('state.json', name)).toThrow('must be 1 to 40 letters, digits, - or _');
    },
  );
});
