import { normaliseParserStatus } from '../api/parser-status.js';
import { PARSER_SERVICE } from '../api/transport-contract.js';
import { ParserDetailsSchema, ParserListItemSchema, ParserVersionNumberSchema } from '../api/wire-schemas.js';
import { PARSER_STATUSES } from '../model/vocabulary.js';
import type { DoctorCheck, DoctorReading } from '../output/render-doctor.js';
import { failedCall, listOnce } from './doctor-list-check.js';
import type { Get } from './doctor-list-check.js';

export async function checkParsers(
  baseUrl: string,
  get: Get,
  checks: DoctorCheck[],
  readings: Map<string, DoctorReading>,
): Promise<void> {
  const base = baseUrl.replace(/\/+$/, '');
  const summaries = await listOnce(
    get,
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
  const pick = summaries.find((s) => normaliseParserStatus(s.status) === 'FINISHED') ?? summaries[0];
  if (pick === undefined) {
    checks.push({ name: 'parsers.details', status: 'skipped', message: 'the account has no parser to read' });
    readings.set('details-without-version', {
      name: 'details-without-version',
      seen: null,
      message: 'no parser to read details of',
    });
    return;
  }
  let details: Record<string, unknown>;
  try {
    const response = await get(PARSER_SERVICE, `${base}/parsers/${encodeURIComponent(pick.id)}`);
    if (response.body === null || typeof response.body !== 'object' || Array.isArray(response.body)) {
      checks.push({
        name: 'parsers.details',
        status: 'fail',
        message: `the details of ${pick.id} are not a JSON object`,
      });
      return;
    }
    details = response.body as Record<string, unknown>;
  } catch (error) {
    checks.push(failedCall('parsers.details', error));
    return;
  }
  // As plan reads it: a version written as digits ("3") is one.
  const hasVersion = ParserVersionNumberSchema.safeParse(details.version).success;
  readings.set('details-without-version', {
    name: 'details-without-version',
    seen: !hasVersion,
    message: hasVersion
      ? 'parser details carry their version'
      : 'parser details carry no version; scrapeform uses the version asked for or listed',
  });
  checks.push({ name: 'parsers.details', ...detailsVerdict(pick, details) });
}

/** What doctor says of a parser's details, as plan reads them (ParsersClient.get). */
function detailsVerdict(
  pick: { id: string; name: string },
  details: Record<string, unknown>,
): Pick<DoctorCheck, 'status' | 'message'> {
  // An answer plan refuses fails every plan, whatever else it shows.
  const read = ParserDetailsSchema.safeParse(details);
  if (!read.success) {
    const issue = read.error.issues[0];
    return {
      status: 'fail',
      message: `the details of parser "${pick.name}" (${pick.id}) are not an answer plan can read: field ${issue?.path.map(String).join('.') ?? '?'}: ${issue?.message ?? 'invalid'}`,
    };
  }
  const finished = typeof details.status === 'string' && normaliseParserStatus(details.status) === 'FINISHED';
  if (finished && !Array.isArray(details.fields))
    return {
      status: 'fail',
      message: `parser ${pick.id} is FINISHED but its details have no fields: plan refuses such answers rather than send every field again`,
    };
  // Right for a parser declared with no fields, which doctor cannot tell without state (ParsersClient.get,
  // fieldlessOf): said rather than passed as ok or failed.
  if (finished && Array.isArray(details.fields) && details.fields.length === 0)
    return {
      status: 'warn',
      message: `parser "${pick.name}" (${pick.id}) is FINISHED but its details list no fields: plan refuses such an answer unless state records the parser declared with no fields (or a manifest declaring none adopts it)`,
    };
  const spelling =
    details.example_result === undefined && details.example_results !== undefined
      ? ' (as example_results)'
      : '';
  return {
    status: 'ok',
    message: `parser "${pick.name}" (${pick.id}): ${Object.keys(details).sort().join(', ')}${spelling}`,
  };
}
