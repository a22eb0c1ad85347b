import { yaml } from './yaml-library.js';
import type { Diagnostic } from './diagnostic.js';
import { documentSource } from './object-source.js';
import type { ObjectSource } from './object-source.js';
import { parseManifestText, readManifestText } from './read-manifest-file.js';
import { at, isRecord } from './rules.js';
import type { VariableType } from './schemas.js';
import { suggestNearest } from './suggest.js';
import { documentToData, inspectDocument, keyPathOf, positionOf } from './yaml-document.js';
import type { SourceDocument } from './yaml-document.js';
import { describeValue } from './zod-diagnostics.js';

/* The values of a project's declared variables, as var files and environments give them, checked against their types. */

/** A var file to read: a `--var-file`, or an entry of an environment's `varFiles`, with where it is written. */
export interface VarFile {
  file: string;
  /** The `varFiles` entry naming it in scrapeform.yaml: a file that cannot be read is reported there. */
  entry?: { place: ObjectSource; path: PropertyKey[]; written: string };
}

/** Reads var files: each a map of declared variables to values of their types; problems are placed. */
export function readVarFiles(
  files: readonly VarFile[],
  declared: ReadonlyMap<string, VariableType>,
  values: Map<string, unknown>,
  diagnostics: Diagnostic[],
  environment: string | undefined,
): void {
  for (const { file, entry } of files) {
    const text = readManifestText(file);
    if ('diagnostic' in text) {
      diagnostics.push(
        entry !== undefined && text.error !== undefined
          ? at(
              entry.place,
              entry.path,
              'value',
              'config.var-file-unreadable',
              `cannot read var file "${entry.written}": ${text.error.code === 'ENOENT' ? 'no such file' : text.error.message}`,
              { hint: 'varFiles are relative to scrapeform.yaml: fix the path, or remove the entry' },
            )
          : text.diagnostic,
      );
      continue;
    }
    const read = parseManifestText(file, text.text);
    diagnostics.push(...read.diagnostics);
    for (const source of read.documents) {
      const structural = inspectDocument(source);
      diagnostics.push(...structural);
      if (structural.length > 0) continue;
      // The values are still read: the error stops the run, and the variable is not also said to have no value.
      diagnostics.push(...referenceProblems(source));
      const converted = documentToData(source);
      if ('diagnostic' in converted) {
        diagnostics.push(converted.diagnostic);
        continue;
      }
      const place = documentSource(source);
      if (converted.data === null || converted.data === undefined) continue;
      if (!isRecord(converted.data)) {
        diagnostics.push(
          at(
            place,
            [],
            'value',
            'config.var-file',
            `a var file is a map of variable names to values, got ${describeValue(converted.data)}`,
          ),
        );
        continue;
      }
      for (const [variable, value] of Object.entries(converted.data)) {
        const problem = valueProblem(declared, variable, value, environment);
        if (problem !== undefined)
          diagnostics.push(at(place, [variable], problem.at, problem.code, problem.message, problem.extra));
        else values.set(variable, value);
      }
    }
  }
}

/**
 * A var file holds plain values: nothing in it is expanded, so a `${…}` would reach the manifests (and the
 * service) as its literal text. Each one is an error at its place. `$${` is a literal `${`, as in manifests, and
 * is unescaped here; in a key, as in manifests, any `${` is an error.
 */
function referenceProblems(source: SourceDocument): Diagnostic[] {
  const out: Diagnostic[] = [];
  yaml().visit(source.doc, {
    Scalar(key, node, ancestors) {
      if (typeof node.value !== 'string' || !node.value.includes('${')) return;
      if (key !== 'key' && !node.value.replaceAll('$${', '').includes('${')) {
        node.value = node.value.replaceAll('$${', '${');
        return;
      }
      const pos = positionOf(source, node);
      out.push({
        severity: 'error',
        code: 'config.var-file',
        file: source.file,
        line: pos.line,
        column: pos.column,
        path: keyPathOf([...ancestors, node]),
        message: `"${node.value}": a var file holds plain values; \${…} is not expanded in it`,
        hint: "write the value out, or move the reference to the manifest that reads the variable, or to the environment's variables in scrapeform.yaml (both expand ${NAME}); write $${ for a literal ${",
      });
    },
  });
  return out;
}

/** What is wrong with a value given for a variable: not declared (with the nearest name), or not of its type. */
export function valueProblem(
  declared: ReadonlyMap<string, VariableType>,
  variable: string,
  value: unknown,
  environment?: string,
): { at: 'key' | 'value'; code: string; message: string; extra: { hint?: string } } | undefined {
  const type = declared.get(variable);
  if (type === undefined) {
    const near = suggestNearest(variable, [...declared.keys()]);
    return {
      at: 'key',
      code: 'config.variable-undeclared',
      message: `no variable "${variable}" is declared${environment !== undefined ? '' : ' in scrapeform.yaml'}`,
      extra: {
        hint:
          near !== undefined ? `did you mean "${near}"?` : 'declare it under variables: in scrapeform.yaml',
      },
    };
  }
  const problem = typeProblem(type, value);
  return problem !== undefined
    ? { at: 'value', code: 'config.variable-type', message: `variable "${variable}" ${problem}`, extra: {} }
    : undefined;
}

/** What is wrong with a value for a variable of this type, if anything. */
export function typeProblem(type: VariableType, value: unknown): string | undefined {
  const ok =
    type === 'list'
      ? Array.isArray(value)
      : type === 'map'
        ? isRecord(value)
        : type === 'number'
          ? typeof value === 'number' && Number.isFinite(value)
          : typeof value === type;
  return ok ? undefined : `is declared ${type}, got ${describeValue(value)}`;
}
