import { readFlag } from './read-flag.js';

/**
 * Whether a project record says it is archived, and how. Archived projects leave the list (API-NOTES), but
 * whether a read by id still answers for one, and with what, is unknown: archive is a soft delete (support can
 * restore a project), so the record may come back whole, marked. Read as live, a project archived in the
 * dashboard would be planned as up to date while it never runs again, and an archive answered 404 would be
 * reported as not done. No marker is documented; these are the usual spellings, each unambiguous: a flag that is
 * true (as readFlag reads it: `"true"` or `1` too; ProjectSchema refuses a flag of neither meaning), an archive
 * time that is set, or a status that says `archived` in any case.
 */
export function archiveMark(project: Readonly<Record<string, unknown>>): string | undefined {
  for (const key of ['archived', 'isArchived', 'is_archived']) {
    if (readFlag(project[key]) === true) return `${key}: ${JSON.stringify(project[key])}`;
  }
  for (const key of ['archivedAt', 'archived_at']) {
    const at = project[key];
    if (typeof at === 'string' && at.trim() !== '') return `${key}: ${JSON.stringify(at)}`;
  }
  for (const key of ['status', 'state']) {
    const value = project[key];
    if (typeof value === 'string' && value.trim().toLowerCase() === 'archived')
      return `${key}: ${JSON.stringify(value)}`;
  }
  return undefined;
}
