/** The longest a Node timer waits (2^31 - 1 ms, about 24.8 days): a longer one fires after 1 ms instead. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `2s`, `15m`, `1h`, `1d`, `1h30m`, or a bare number of milliseconds; undefined when unreadable. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) return undefined;
  return parts.reduce((sum, p) => sum + Number(p[1]) * (UNITS[p[2] as string] ?? 0), 0);
}

/** `42s`, `3m 05s`, `1h 02m`: how long something has been running, for progress lines. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}
