import type { Diagnostic } from './diagnostic.js';
import { documentSource } from './object-source.js';
import { readManifestFile } from './read-manifest-file.js';
import { at, isRecord } from './rules.js';
import type { VariableType } from './schemas.js';
import { suggestNearest } from './suggest.js';
import { documentToData, inspectDocument } from './yaml-document.js';
import { describeValue } from './zod-diagnostics.js';

/* The values of a project's declared variables, as var files and environments give them, checked against their types. */

/** Reads `--var-file` files: each a map of declared variables to values of their types; problems are placed. */
export function readVarFiles(
  files: readonly string[],
  declared: ReadonlyMap<string, VariableType>,
  values: Map<string, unknown>,
  diagnostics: Diagnostic[],
  environment: string | undefined,
): void {
  for (const file of files) {
    const read = readManifestFile(file);
    diagnostics.push(...read.diagnostics);
    for (const source of read.documents) {
      const structural = inspectDocument(source);
      diagnostics.push(...structural);
      if (structural.length > 0) continue;
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
