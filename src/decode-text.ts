import { isUtf8 } from 'node:buffer';
/** Where a text could not be read as UTF-8, and why; line and column are 1-based. */
export interface EncodingProblem {
  line: number;
  column: number;
  message: string;
}

const BYTE_ORDER_MARKS: readonly { bytes: readonly number[]; encoding: string }[] = [
  { bytes: [0x00, 0x00, 0xfe, 0xff], encoding: 'UTF-32 (big-endian)' },
  { bytes: [0xff, 0xfe, 0x00, 0x00], encoding: 'UTF-32 (little-endian)' },
  { bytes: [0xfe, 0xff], encoding: 'UTF-16 (big-endian)' },
  { bytes: [0xff, 0xfe], encoding: 'UTF-16 (little-endian)' },
];

/**
 * Decodes a file as UTF-8 (a UTF-8 byte order mark is dropped unless `keepByteOrderMark`), or says where and why
 * it is not: another encoding's byte order mark, the NUL bytes of UTF-16 without one, a byte sequence UTF-8 does
 * not allow, or a NUL character. Nothing is ever replaced by U+FFFD.
 */
export function decodeText(
  bytes: Uint8Array,
  keepByteOrderMark = false,
): { text: string } | { problem: EncodingProblem } {
  for (const mark of BYTE_ORDER_MARKS) {
    if (mark.bytes.every((b, i) => bytes[i] === b)) {
      return { problem: { line: 1, column: 1, message: `the file is ${mark.encoding}, not UTF-8` } };
    }
  }
  const utf16 = guessUtf16WithoutMark(bytes);
  if (utf16 !== undefined) {
    return {
      problem: {
        line: 1,
        column: 1,
        message: `the file looks like ${utf16} without a byte order mark, not UTF-8`,
      },
    };
  }
  // Checked natively first; the byte-by-byte search runs only to place a problem.
  const invalidAt = isUtf8(bytes) ? undefined : firstInvalidUtf8(bytes);
  if (invalidAt !== undefined) {
    const before = new TextDecoder('utf-8').decode(bytes.subarray(0, invalidAt));
    const byte = (bytes[invalidAt] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    return {
      problem: {
        ...placeOf(before, before.length),
        message: `the file is not valid UTF-8: byte 0x${byte} here (Latin-1 or Windows-1252, perhaps)`,
      },
    };
  }
  const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: keepByteOrderMark }).decode(bytes);
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    return {
      problem: { ...placeOf(text, nul), message: 'the file holds a NUL character: it is binary, not text' },
    };
  }
  return { text };
}

/** ASCII-range text in UTF-16 has a NUL in every other byte; two such pairs at the start are enough to tell. */
function guessUtf16WithoutMark(bytes: Uint8Array): string | undefined {
  if (bytes.length < 4) return undefined;
  const [a, b, c, d] = bytes;
  if (a !== 0 && b === 0 && c !== 0 && d === 0) return 'UTF-16 (little-endian)';
  if (a === 0 && b !== 0 && c === 0 && d !== 0) return 'UTF-16 (big-endian)';
  return undefined;
}

/** Offset of the first byte that does not belong to a well-formed UTF-8 sequence (RFC 3629), if any. */
function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    let length: number;
    let min: number;
    if (lead < 0x80) {
      i++;
      continue;
    } else if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
      min = 0x80;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      min = 0x800;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      min = 0x10000;
    } else {
      return i;
    }
    let code = lead & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
      code = (code << 6) | (next & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += length;
  }
  return undefined;
}

function placeOf(text: string, index: number): { line: number; column: number } {
  const before = text.slice(0, index);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: index - lineStart + 1 };
}
