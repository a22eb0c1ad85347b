import { ScrapeformError } from '../errors.js';

export { DEFAULT_WORKSPACE } from '../model/state-location.js';

/**
 * Refuses a workspace name that cannot name a folder or a table as it is: 1 to 40 letters, digits, `-` and `_`,
 * so no path separator, no `..` and nothing empty ever reaches a path or an SQL identifier.
 */
export function checkWorkspaceName(workspace: string): string {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(workspace)) {
    throw new ScrapeformError(
      'state.workspace',
      `workspace "${workspace}" must be 1 to 40 letters, digits, - or _`,
      {
        hint: 'choose a name such as prod, staging or team-a (--workspace, SCRAPEFORM_WORKSPACE or the environment)',
      },
    );
  }
  return workspace;
}
