import { readFlag } from './read-flag.js';
import { serviceTime } from './service-time.js';

/**
 * Whether a project record says it is archived, and how. Archived projects leave the list (API-NOTES), but
 * whether a read by id still answers for one, and with what, is unknown: archive is a soft delete (support can
 * restore a project), so the record may come back whole, marked. Read as live, a project archived in the
 * dashboard would be planned as up to date while it never runs again, and an archive answered 404 would be
 * reported as not done. No marker is documented; these are the usual spellings, each unambiguous: a flag that is
 * true (as readFlag reads it: `"true"` or `1` too; ProjectSchema refuses a flag of neither meaning), an archive
 * time (archiveTime: a placeholder such as Go's zero time is none), or a status that says `archived` in any case.
 */
export function archiveMark(project: Readonly<Record<string, unknown>>): string | undefined {
  for (const key of ['archived', 'isArchived', 'is_archived']) {
    if (readFlag(project[key]) === true) return `${key}: ${JSON.stringify(project[key])}`;
  }
  for (const key of ['archivedAt', 'archived_at']) {
    if (archiveTime(project[key]) === 'archived') return `${key}: ${JSON.stringify(project[key])}`;
  }
  for (const key of ['status', 'state']) {
    const value = project[key];
    if (typeof value === 'string' && value.trim().toLowerCase() === 'archived')
      return `${key}: ${JSON.stringify(value)}`;
  }
  return undefined;
}

/** Before this, an archive time is a placeholder for none (Go's zero time, the epoch's 0), not a project archived. */
const EARLIEST_ARCHIVE_MS = Date.UTC(2000, 0, 1);

/**
 * What an `archivedAt` says: a time (as serviceTime reads one) since 2000 is an archive; none, an empty one, a word for
 * none (`"null"`), false, a number up to 0, a zero date, or a placeholder time before 2000 is not; anything else cannot
 * be read (ProjectSchema refuses the answer, naming the field). Any set string counted as archived: a service writing
 * the zero time for "never" made every live project read as archived, and each of them was planned to be created again,
 * paid per page.
 */
export function archiveTime(value: unknown): 'archived' | 'none' | 'unreadable' {
  if (value === undefined || value === null || value === false) return 'none';
  if (typeof value === 'number' && value <= 0) return 'none';
  if (typeof value === 'string' && /^\s*(null|none|nil|never|0)?\s*$/i.test(value)) return 'none';
  // A zero date of any spelling (MySQL's `0000-00-00 00:00:00`, `00/00/0000`): no time to read, and no archive.
  if (typeof value === 'string' && /^[\s0:./TZ+-]+$/.test(value)) return 'none';
  if (typeof value !== 'string' && typeof value !== 'number') return 'unreadable';
  const at = serviceTime(value);
  if (at === undefined) return 'unreadable';
  return at >= EARLIEST_ARCHIVE_MS ? 'archived' : 'none';
}
