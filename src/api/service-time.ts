/**
 * A time as a service sends it, in ms since the epoch: an ISO string (one with no zone read as UTC), another form
 * with its zone written out, or an epoch time in seconds, milliseconds, microseconds or nanoseconds, as a number or a
 * string of digits. Undefined for anything else: a time no runner would read alike is none. No field of a job or of
 * a parser's details says which it sends (API-NOTES), so all are read.
 */
export function serviceTime(value: unknown): number | undefined {
  if (typeof value === 'number') return epochTime(value);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  // An epoch time sent as a string ("1732700000", "1732700000123") is the number it spells: Date.parse reads no
  // such string (NaN), or reads a short one as a year ("2024") or a date ("0" is 2000-01-01).
  if (/^\d+(\.\d+)?$/.test(text)) return epochTime(Number(text));
  // ISO 8601 as services write it, a date and time with no zone read as UTC, as a date alone is: Date.parse reads
  // it in this machine's zone, so the same answer would mean another moment on each runner.
  const iso = ISO.exec(text);
  if (iso !== null) {
    const [, date, time, zone] = iso;
    const offset =
      zone === undefined || /^(z|utc|gmt)$/i.test(zone)
        ? 'Z'
        : zone.replace(/^([+-]\d{2}):?(\d{2})?$/, (_, h: string, m?: string) => `${h}:${m ?? '00'}`);
    return parsed(`${date}T${(time ?? '00:00').replace(',', '.')}${offset}`);
  }
  // Any other form only with its zone written out ("Fri, 27 Nov 2026 00:00:00 GMT", "Fri Nov 27 00:00:00 UTC 2026"):
  // without one, Date.parse reads it in this machine's zone too, and a string it takes for a date ("-5" as
  // 2001-05-01, "11-27-2026") is no time at all.
  return ZONE_WORD.test(text) || OFFSET_AFTER_CLOCK.test(text) ? parsed(text) : undefined;
}

/**
 * Whether `value` is an ISO date (and time) written with no zone: serviceTime reads it as UTC, and it is off by up
 * to ZONE_DOUBT_MS if the service wrote its own zone's time.
 */
export function writtenWithoutZone(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const iso = ISO.exec(value.trim());
  return iso !== null && iso[3] === undefined;
}

/** How far from UTC a zone's time may be: 14 hours (UTC+14, Kiribati; UTC-12 the other way). */
export const ZONE_DOUBT_MS = 14 * 60 * 60_000;

/** YYYY-MM-DD, then a time (T, t or a space before it) and a zone (Z, UTC, GMT, or an offset of hours and minutes). */
const ISO =
  /^(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?))?\s*([Zz]|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/** A zone named as a word: GMT, UTC, UT, Z, or one of RFC 822's of North America, which Date.parse reads. */
const ZONE_WORD = /\b(?:GMT|UTC|UT|Z|[ECMP][SD]T)\b/i;

/** An offset right after a time of day (00:00:00 +0100, 00:00-05:00, GMT+0000): not a year after a dash. */
const OFFSET_AFTER_CLOCK = /\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:GMT|UTC)?[+-]\d{2}:?\d{2}\b/i;

function parsed(text: string): number | undefined {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * An epoch time as ms, by its size: seconds are below 1e11 until the year 5138, milliseconds above it after 1973
 * (and below 1e14), microseconds from 1e14 and nanoseconds from 1e17 alike. Nothing for 0 or less, nor for a time
 * past the last a Date holds.
 */
function epochTime(value: number): number | undefined {
  if (!Number.isFinite(value) || value <= 0) return undefined;
  const ms = value < 1e11 ? value * 1000 : value < 1e14 ? value : value < 1e17 ? value / 1e3 : value / 1e6;
  return ms <= MAX_DATE_MS ? ms : undefined;
}

/** The last moment a Date holds (ECMA-262: 8.64e15 ms from the epoch). */
const MAX_DATE_MS = 8.64e15;
