import { ScrapeformError } from '../errors.js';

/**
 * One segment of a request's path (an id), percent-encoded. An empty one, `.` or `..` is refused before anything is
 * sent: percent-encoding leaves them as they are, and the URL the request is made of resolves them away, so the
 * request would reach another resource. A job id `..` sent to `DELETE /api/projects/522/jobs/..` would be
 * `DELETE /api/projects/522/`: the project's archive, which the API cannot undo.
 */
export function pathSegment(value: string | number): string {
  const text = String(value);
  if (namesAnotherResource(text))
    throw new ScrapeformError(
      'api.unsafe-path',
      `the id ${JSON.stringify(text)} cannot be sent in a request's path: it would name another resource; nothing was sent`,
      { hint: 'ids are read from state or from the services; an id given by hand must be one they show' },
    );
  return encodeURIComponent(text);
}

/** Whether `text`, as one segment of a path, would not stay one: empty, `.` or `..`. */
export function namesAnotherResource(text: string): boolean {
  return text === '' || text === '.' || text === '..';
}
