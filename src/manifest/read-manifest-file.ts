import { readFileSync } from 'node:fs';
import { decodeText } from '../decode-text.js';
import type { Diagnostic } from './diagnostic.js';
import { parseYamlFile } from './yaml-document.js';
import type { SourceDocument } from './yaml-document.js';

/** A file's documents, parsed, before they are expanded. */
export interface ReadFile {
  documents: SourceDocument[];
  diagnostics: Diagnostic[];
}

/** Reads and parses one manifest file into YAML documents; unreadable, non-UTF-8 or broken YAML is reported. */
export function readManifestFile(file: string): ReadFile {
  const read = readManifestText(file);
  return 'text' in read
    ? parseManifestText(file, read.text)
    : { documents: [], diagnostics: [read.diagnostic] };
}

/**
 * The text of a manifest file (its UTF-8 byte order mark kept with `keepByteOrderMark`, as fmt writes it back), or
 * why it cannot be read (unreadable, not UTF-8); for an unreadable file, the error too, for a caller that reports it
 * where the file is named.
 */
export function readManifestText(
  file: string,
  keepByteOrderMark = false,
): { text: string } | { diagnostic: Diagnostic; error?: NodeJS.ErrnoException } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    return {
      diagnostic: fileDiagnostic(
        file,
        'manifest.unreadable',
        `cannot read file: ${(error as Error).message}`,
      ),
      error: error as NodeJS.ErrnoException,
    };
  }
  const decoded = decodeText(bytes, keepByteOrderMark);
  if ('problem' in decoded) {
    return {
      diagnostic: {
        severity: 'error',
        code: 'manifest.encoding',
        file,
        line: decoded.problem.line,
        column: decoded.problem.column,
        path: '',
        message: decoded.problem.message,
        hint: 'save the file as UTF-8 text',
      },
    };
  }
  return { text: decoded.text };
}

/** A manifest's text parsed into YAML documents with positions; broken YAML is reported. */
export function parseManifestText(file: string, text: string): ReadFile {
  const parsed = parseYamlFile(file, text);
  return { documents: parsed.documents, diagnostics: parsed.diagnostics };
}

function fileDiagnostic(file: string, code: string, message: string): Diagnostic {
  return { severity: 'error', code, file, line: 0, column: 0, path: '', message };
}
