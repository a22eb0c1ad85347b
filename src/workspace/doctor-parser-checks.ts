import { findMiscasedChildren, miscasedProblem } from '../api/details-fields.js';
import { normaliseParserStatus } from '../api/parser-status.js';
import { PARSER_SERVICE } from '../api/transport-contract.js';
import { ParserDetailsSchema, ParserListItemSchema, ParserVersionNumberSchema } from '../api/wire-schemas.js';
import { PARSER_STATUSES, READ_CONCURRENCY } from '../model/vocabulary.js';
import type { DoctorCheck, DoctorReading } from '../output/render-doctor.js';
import { forEachLimited } from '../worker-pool.js';
import { answerProblem, failedCall, listOnce } from './doctor-list-check.js';
import type { Get, ListReaders } from './doctor-list-check.js';

/** A parser this workspace's state records: its address, and whether state records it declared with no fields. */
export interface ManagedParser {
  address: string;
  /** As plan reads it (fieldlessOf): a FINISHED version listing no fields is then right, not an answer left short. */
  fieldless: boolean;
}

/**
 * The parsers this workspace's state records (by id), `{unread}` saying why state could not be read, or
 * undefined when no state was given (a library call): doctor reads the details of each one listed FINISHED.
 */
export type ManagedParsers = ReadonlyMap<string, ManagedParser> | { unread: string } | undefined;

export async function checkParsers(
  baseUrl: string,
  readers: ListReaders,
  checks: DoctorCheck[],
  readings: Map<string, DoctorReading>,
  managed: ManagedParsers,
): Promise<void> {
  const base = baseUrl.replace(/\/+$/, '');
  const { get } = readers;
  const summaries = await listOnce(
    readers,
    PARSER_SERVICE,
    `${base}/parsers`,
    'parsers',
    checks,
    readings,
    (items) => {
      const parsed = items.map((item) => ParserListItemSchema.safeParse(item));
      const bad = parsed.findIndex((p) => !p.success);
      return bad >= 0
        ? {
            problem: `item ${bad} of the parser list does not have id, name, status and version as the seed describes; plan cannot read it`,
          }
        : { value: parsed.flatMap((p) => (p.success ? [p.data] : [])) };
    },
  );
  if (summaries === undefined) return;
  const raw = [...new Set(summaries.map((s) => s.status))];
  const unknown = raw.filter(
    (s) => !(PARSER_STATUSES as readonly string[]).includes(normaliseParserStatus(s)),
  );
  const respelled = raw.filter(
    (s) => !(PARSER_STATUSES as readonly string[]).includes(s) && !unknown.includes(s),
  );
  readings.set('queued-status', {
    name: 'queued-status',
    seen: unknown.length > 0 || respelled.length > 0 ? true : summaries.length > 0 ? false : null,
    message:
      unknown.length > 0 || respelled.length > 0
        ? `statuses beyond the seed's: ${[...unknown, ...respelled].map((s) => JSON.stringify(s)).join(', ')}; ${unknown.length > 0 ? 'unknown ones are read as still working' : ''}${respelled.length > 0 ? `${unknown.length > 0 ? '; ' : ''}other spellings are read as the seed's value` : ''}`
        : summaries.length > 0
          ? `only the seed's statuses: ${raw.join(', ')}`
          : 'no parser to read a status from',
  });
  // The sample (the first FINISHED parser, else the first) feeds the readings; every FINISHED parser this
  // workspace manages is read as well, since one broken parser fails every plan that reads it.
  const pick = summaries.find((s) => normaliseParserStatus(s.status) === 'FINISHED') ?? summaries[0];
  const byId = managed !== undefined && !('unread' in managed) ? managed : undefined;
  // Computed once: what is read here is what managedCheck counts.
  const listedManaged = summaries.filter((s) => byId?.has(s.id) === true);
  const finishedManaged = listedManaged.filter((s) => normaliseParserStatus(s.status) === 'FINISHED');
  if (pick === undefined) {
    checks.push({ name: 'parsers.details', status: 'skipped', message: 'the account has no parser to read' });
    readings.set('details-without-version', {
      name: 'details-without-version',
      seen: null,
      message: 'no parser to read details of',
    });
    checks.push(managedCheck(managed, listedManaged, finishedManaged, new Map()));
    return;
  }
  const toRead = [pick, ...finishedManaged.filter((s) => s.id !== pick.id)];
  const read = new Map<string, DetailsRead>();
  await forEachLimited(toRead, READ_CONCURRENCY, async (summary) => {
    read.set(summary.id, await readDetails(base, get, summary, byId?.get(summary.id)));
  });
  const sample = read.get(pick.id);
  if (sample?.details !== undefined) {
    // As plan reads it: a version written as digits ("3") is one.
    const hasVersion = ParserVersionNumberSchema.safeParse(sample.details.version).success;
    readings.set('details-without-version', {
      name: 'details-without-version',
      seen: !hasVersion,
      message: hasVersion
        ? 'parser details carry their version'
        : 'parser details carry no version; scrapeform uses the version asked for or listed',
    });
  }
  // The sample's line as before; of the others only what is wrong, in the list's order: the count says the rest.
  for (const summary of toRead) {
    const verdict = read.get(summary.id)?.verdict;
    if (verdict !== undefined && (summary.id === pick.id || verdict.status !== 'ok'))
      checks.push({ name: 'parsers.details', ...verdict });
  }
  checks.push(managedCheck(managed, listedManaged, finishedManaged, read));
}

/** What doctor knows of the parsers it reads, by id. */
interface DetailsRead {
  verdict: Pick<DoctorCheck, 'status' | 'message'>;
  /** The details answer, when it was a JSON object. */
  details?: Record<string, unknown>;
}

async function readDetails(
  base: string,
  get: Get,
  summary: { id: string; name: string },
  managed: ManagedParser | undefined,
): Promise<DetailsRead> {
  const named = parserNamed(summary, managed?.address);
  try {
    const response = await get(PARSER_SERVICE, `${base}/parsers/${encodeURIComponent(summary.id)}`);
    if (response.body === null || typeof response.body !== 'object' || Array.isArray(response.body))
      return { verdict: { status: 'fail', message: `the details of ${named} are not a JSON object` } };
    const details = response.body as Record<string, unknown>;
    return { verdict: detailsVerdict(named, details, managed?.fieldless === true), details };
  } catch (error) {
    const failed = failedCall('parsers.details', error);
    return { verdict: { status: failed.status, message: `the details of ${named}: ${failed.message}` } };
  }
}

/**
 * How every finding of doctor names a parser: its name and id as the list shows them, and the address state records
 * it under when this workspace manages it (doctor reads no manifest, so no file:line).
 */
export function parserNamed(parser: { id: string; name: string }, address: string | undefined): string {
  return `parser "${parser.name}" (${parser.id}${address !== undefined ? `, managed as ${address}` : ''})`;
}

/** What doctor says of a parser's details, as plan reads them (ParsersClient.get). */
function detailsVerdict(
  named: string,
  details: Record<string, unknown>,
  fieldless: boolean,
): Pick<DoctorCheck, 'status' | 'message'> {
  // An answer plan refuses fails every plan, whatever else it shows.
  const read = ParserDetailsSchema.safeParse(details);
  if (!read.success) {
    return {
      status: 'fail',
      message: `the details of ${named} are not an answer plan can read: ${answerProblem(read.error)}`,
    };
  }
  // Children nested under `Fields` or `Children` would be dropped and planned again: plan refuses the answer.
  const miscased = findMiscasedChildren(read.data.fields ?? []);
  if (miscased !== undefined)
    return {
      status: 'fail',
      message: `the details of ${named} are not an answer plan can read: ${miscasedProblem(miscased)}`,
    };
  const finished = typeof details.status === 'string' && normaliseParserStatus(details.status) === 'FINISHED';
  if (finished && !Array.isArray(details.fields))
    return {
      status: 'fail',
      message: `${named} is FINISHED but its details have no fields: plan refuses such answers rather than send every field again`,
    };
  const none = finished && Array.isArray(details.fields) && details.fields.length === 0;
  // Right for a parser state records declared with no fields (ParsersClient.get, fieldlessOf); for any other,
  // plan refuses it unless a manifest declaring none adopts it, which doctor cannot see: said, not failed.
  if (none && !fieldless)
    return {
      status: 'warn',
      message: `${named} is FINISHED but its details list no fields: plan refuses such an answer unless state records the parser declared with no fields (or a manifest declaring none adopts it)`,
    };
  const spelling =
    details.example_result === undefined && details.example_results !== undefined
      ? ' (as example_results)'
      : '';
  return {
    status: 'ok',
    message: `${named}: ${Object.keys(details).sort().join(', ')}${spelling}${none ? ' (no fields, as state records it declared)' : ''}`,
  };
}

/**
 * The `parsers.managed` line: how many of the parsers state records had their details read (each one the list shows
 * FINISHED, every page of it), how they read, and why the others were not.
 */
function managedCheck(
  managed: ManagedParsers,
  listed: readonly { id: string }[],
  finished: readonly { id: string }[],
  read: ReadonlyMap<string, DetailsRead>,
): DoctorCheck {
  const name = 'parsers.managed';
  if (managed === undefined)
    return { name, status: 'skipped', message: 'no state given: the parsers it records were not read' };
  // State, not the account: the account's own checks decide whether scrapeform can work with it.
  if ('unread' in managed)
    return {
      name,
      status: 'warn',
      message: `state could not be read (${managed.unread}): the details of the parsers it records were not checked (only those of the first FINISHED parser were); the account's own checks decide the exit code`,
    };
  if (managed.size === 0) return { name, status: 'skipped', message: 'state records no parser' };
  const verdicts = finished.flatMap((s) => {
    const verdict = read.get(s.id)?.verdict;
    return verdict !== undefined ? [verdict] : [];
  });
  const failed = verdicts.filter((v) => v.status === 'fail').length;
  const warned = verdicts.filter((v) => v.status === 'warn').length;
  const how = [
    failed > 0 ? `${failed} not as plan reads them (above)` : '',
    warned > 0 ? `${warned} with a warning (above)` : '',
  ].filter((part) => part !== '');
  const unread = [
    listed.length > finished.length ? `${listed.length - finished.length} not FINISHED, not read` : '',
    managed.size > listed.length ? `${managed.size - listed.length} not on the list, not read` : '',
  ].filter((part) => part !== '');
  const message = [
    `read the details of ${finished.length} of the ${managed.size} parsers state records (each one the list shows FINISHED)${finished.length > 0 ? `: ${how.length > 0 ? how.join(', ') : 'each as plan reads them'}` : ''}`,
    ...unread,
  ].join('; ');
  return { name, status: failed > 0 ? 'fail' : warned > 0 ? 'warn' : 'ok', message };
}
