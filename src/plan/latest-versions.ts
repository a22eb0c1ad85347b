import type { LiveParserDetails, LiveParserSummary } from '../api/live.js';
import type { LiveSnapshot } from './model.js';

/** A parser found by id, as the list would have shown it. */
export function summaryOf(details: LiveParserDetails): LiveParserSummary {
  return {
    id: details.id,
    name: details.name,
    status: details.status,
    error: details.error,
    generated_at: details.generatedAt,
    version: details.version,
  };
}

/**
 * The snapshot with each parser at the latest version any answer showed. A list may lag behind a PATCH as it may
 * behind a create (API-NOTES, Lists: nothing says a change shows in the list at once), so where the details read by
 * id show a later version than the list, the details are the newer answer: planning from the list's older version
 * would send again a PATCH that already landed, at the price of another generation. Pure; the same snapshot when
 * no details are newer.
 */
export function latestVersions(live: LiveSnapshot): LiveSnapshot {
  let parsers: LiveParserSummary[] | undefined;
  live.parsers.forEach((listed, i) => {
    const read = live.details[listed.id];
    if (read === undefined || read.version <= listed.version) return;
    parsers ??= [...live.parsers];
    parsers[i] = { ...summaryOf(read), name: read.name !== '' ? read.name : listed.name };
  });
  return parsers === undefined ? live : { ...live, parsers };
}
