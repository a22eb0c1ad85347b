import type { ScrapeformError } from '../errors.js';
import { formatKeyPath } from '../manifest/diagnostic.js';
import type { ParserDefinition, UnknownValues } from '../state/model.js';
import type { ResourceChange } from './model.js';
import { FieldOperationsSchema } from './plan-file-schema.js';
import type { ChangeFile } from './plan-file-schema.js';
import type { PlannedRequest } from './plan-json.js';

/**
 * The typed change behind one change of the file. What apply needs is in `record` and `requests`; which of the
 * two ways to replace a parser a change is shows in its first call (a POST creates the new parser).
 */
export function typedChange(c: ChangeFile, damaged: (message: string) => ScrapeformError): ResourceChange {
  const common = {
    address: c.address,
    name: c.name,
    reasons: c.reasons,
    ...(c.origin !== undefined ? { origin: c.origin } : {}),
    regenerates: c.regenerates,
    destructive: c.destructive,
    field_changes: c.field_changes,
    breaking: c.breaking,
    ...(c.input_summary !== undefined ? { input_summary: c.input_summary } : {}),
  };
  const record = c.record;
  const stringId = (): string => {
    if (typeof c.id !== 'string') throw damaged(`id: a ${c.kind} to ${c.action} needs its id as a string`);
    return c.id;
  };
  const numberId = (): number => {
    if (typeof c.id !== 'number') throw damaged(`id: a project to ${c.action} needs its id as a number`);
    return c.id;
  };
  const parserRecord = (): Extract<ChangeFile['record'], { kind: 'Parser' }> => {
    if (record.kind !== 'Parser') throw damaged(`record.kind: a parser to ${c.action} needs a Parser record`);
    return record;
  };
  const recordedVersion = (): number => {
    const version = parserRecord().baseVersion;
    if (version === null) throw damaged(`record.baseVersion: a parser to ${c.action} needs its version`);
    return version;
  };
  const projectRecord = (): Extract<ChangeFile['record'], { kind: 'Project' }> => {
    if (record.kind !== 'Project')
      throw damaged(`record.kind: a project to ${c.action} needs a Project record`);
    return record;
  };
  const bodyOf = (request: PlannedRequest | undefined, i: number): Record<string, unknown> => {
    if (request?.body === undefined) throw damaged(`requests[${i}].body: the ${c.action} has no body`);
    return request.body;
  };

  if (c.kind === 'Parser') {
    const definition = (): ParserDefinition => parserRecord().definition;
    // Parsers of an interrupted replace, deleted after the one the change names (its later DELETEs).
    const deleted = (requests: readonly PlannedRequest[]): { alsoDeletes?: string[] } => {
      const ids = requests.map((r) => decodeURIComponent(r.path.slice('/parsers/'.length)));
      if (ids.length === 0) return {};
      // Only a destructive change deletes more than the parser it names, and each parser once.
      if (c.destructive !== true || new Set([c.id, ...ids]).size !== ids.length + 1)
        throw damaged(
          `requests: a ${c.action} deletes parsers beyond the one it names only when destructive, each once`,
        );
      return { alsoDeletes: ids };
    };
    const unknownOf = (): { unknown?: UnknownValues } => {
      const unknown = parserRecord().unknown;
      return unknown !== undefined ? { unknown } : {};
    };
    switch (c.action) {
      case 'create':
        return { ...common, kind: 'Parser', action: 'create', id: null, definition: definition() };
      case 'update':
        return {
          ...common,
          kind: 'Parser',
          action: 'update',
          id: stringId(),
          baseVersion: recordedVersion(),
          waves: c.requests.map((r, i) => {
            const ops = FieldOperationsSchema.safeParse(bodyOf(r, i));
            if (!ops.success) {
              const [issue] = ops.error.issues;
              throw damaged(
                `requests[${i}].body.${formatKeyPath(issue?.path ?? [])}: ${issue?.message ?? 'invalid'}`,
              );
            }
            return ops.data;
          }),
          definition: definition(),
          descriptionsKnown: parserRecord().descriptionsKnown,
          ...unknownOf(),
        };
      case 'replace': {
        const [first, ...rest] = c.requests;
        if (first?.method === 'POST')
          return {
            ...common,
            kind: 'Parser',
            action: 'replace',
            finishing: false,
            id: stringId(),
            definition: definition(),
            ...deleted(rest.slice(1)),
            // Shown, never sent: a plan saved before the old parser was part of the format has none.
            ...(c.replaced !== undefined
              ? {
                  replaced: {
                    ...(c.replaced.urls !== undefined ? { urls: c.replaced.urls } : {}),
                    ...(c.replaced.scraper_params !== undefined
                      ? { scraperParams: c.replaced.scraper_params }
                      : {}),
                    field_changes: c.replaced.field_changes,
                    unchanged: c.replaced.unchanged,
                  },
                }
              : {}),
          };
        const oldId = first === undefined ? null : decodeURIComponent(first.path.slice('/parsers/'.length));
        return {
          ...common,
          kind: 'Parser',
          action: 'replace',
          finishing: true,
          id: stringId(),
          oldId,
          version: recordedVersion(),
          definition: definition(),
          ...deleted(rest),
        };
      }
      case 'delete':
        return {
          ...common,
          kind: 'Parser',
          action: 'delete',
          id: stringId(),
          ...deleted(c.requests.slice(1)),
        };
      case 'adopt':
        return {
          ...common,
          kind: 'Parser',
          action: 'adopt',
          id: stringId(),
          version: recordedVersion(),
          definition: definition(),
        };
      case 'record':
        return {
          ...common,
          kind: 'Parser',
          action: 'record',
          id: stringId(),
          version: recordedVersion(),
          definition: definition(),
          ...unknownOf(),
        };
      case 'forget':
        return { ...common, kind: 'Parser', action: 'forget', id: stringId() };
      case 'archive':
        throw damaged('action: a parser is deleted, never archived');
    }
  }
  switch (c.action) {
    case 'create': {
      const body = bodyOf(c.requests[0], 0);
      const scheduledAt = body.scheduledAt;
      return {
        ...common,
        kind: 'Project',
        action: 'create',
        id: null,
        definition: projectRecord().definition,
        ...(typeof scheduledAt === 'string' ? { scheduledAt } : {}),
      };
    }
    case 'update':
      return {
        ...common,
        kind: 'Project',
        action: 'update',
        id: numberId(),
        changed: bodyOf(c.requests[0], 0),
        // The old values are shown, never sent: a plan saved before they were part of the format has none.
        ...(c.value_changes !== undefined
          ? { before: Object.fromEntries(c.value_changes.map((v) => [v.field, v.before])) }
          : {}),
        definition: projectRecord().definition,
      };
    case 'archive':
      return { ...common, kind: 'Project', action: 'archive', id: numberId() };
    case 'adopt':
      return {
        ...common,
        kind: 'Project',
        action: 'adopt',
        id: numberId(),
        definition: projectRecord().definition,
      };
    case 'forget':
      return { ...common, kind: 'Project', action: 'forget', id: numberId() };
    case 'record':
      throw damaged('action: only a parser has values never seen to record');
    case 'replace':
    case 'delete':
      throw damaged(
        `action: a project is archived, never ${c.action === 'replace' ? 'replaced' : 'deleted'}`,
      );
  }
}
