import { decodeText } from '../decode-text.js';

/**
 * A state file's bytes read as JSON: what `state pull` wrote, a `.scrapeform/state.json`, or a copy saved on Windows.
 * A UTF-8 byte order mark (Notepad, PowerShell's `Out-File -Encoding utf8`) is dropped: JSON.parse refused it as an
 * invisible "Unexpected token", and the state was called corrupt. A file that is no JSON because it is not UTF-8
 * (Windows PowerShell 5 writes UTF-16 with `>`) says so, where JSON.parse named a garbled first character.
 */
export function parseStateJson(bytes: Buffer): { data: unknown } | { problem: string; notUtf8: boolean } {
  const text = bytes.toString('utf8');
  try {
    return { data: JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text) };
  } catch (error) {
    // Only a file that failed to parse is looked at again: one read before stays read as it was.
    const decoded = decodeText(bytes);
    if ('problem' in decoded) return { problem: decoded.problem.message, notUtf8: true };
    return { problem: (error as Error).message, notUtf8: false };
  }
}

/** The hint for a state file that is not UTF-8. */
export const SAVE_AS_UTF8 =
  'save it as UTF-8 (Windows PowerShell 5 writes UTF-16 with ">": pipe to Out-File -Encoding utf8 instead)';
