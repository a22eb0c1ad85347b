import { yaml } from './yaml-library.js';
import type { Diagnostic } from './diagnostic.js';
import type { ReferenceScope } from './interpolate.js';
import { hasScopedReference, interpolateDocument } from './interpolate.js';
import { documentSource } from './object-source.js';
import type { SourceLayer } from './object-source.js';
import { at, isRecord } from './rules.js';
import { isExtensionKey, PARSER_TEMPLATE_KEYS, PROJECT_TEMPLATE_KEYS } from './schemas.js';
import type { TemplateKind } from './schemas.js';
import { suggestNearest } from './suggest.js';
import { copyDocument, documentToData, locate } from './yaml-document.js';
import type { SourceDocument } from './yaml-document.js';

/** A ParserTemplate or ProjectTemplate document, read once and expanded for every object that extends it. */
export interface Template {
  kind: TemplateKind;
  name: string;
  source: SourceDocument;
  extends?: string;
  /** It reads `${var.…}` or `${each.…}`: interpolated for each object that uses it, not once. */
  scoped: boolean;
  /** The layer of a template that is not scoped, interpolated once on first use. */
  cached?: { layer: SourceLayer; failed: boolean } | undefined;
}

export interface TemplateRegistry {
  /** By `${kind}/${name}`. */
  templates: Map<string, Template>;
  /** Templates in a cycle or extending an unknown template: reported once here, silently skipped by objects. */
  broken: Set<Template>;
}

const HEAD_KEYS = ['apiVersion', 'kind', 'name', 'extends'];

/** The template kind an object of this kind extends. */
export function templateKindFor(kind: 'Parser' | 'Project'): TemplateKind {
  return kind === 'Parser' ? 'ParserTemplate' : 'ProjectTemplate';
}

/**
 * Reads the templates' heads (kind, name, extends) and checks what does not depend on the objects that use them:
 * their top-level keys, unique names, that every `extends` names a template of the same kind, and that no chain
 * comes back to where it started (the cycle is named). Their values are checked in the objects built on them.
 */
export function collectTemplates(
  documents: readonly { source: SourceDocument; kind: TemplateKind }[],
  diagnostics: Diagnostic[],
): TemplateRegistry {
  const registry: TemplateRegistry = { templates: new Map(), broken: new Set() };
  const all: Template[] = [];
  for (const { source, kind } of documents) {
    const root = source.doc.contents;
    if (!yaml().isMap(root)) continue;
    const place = documentSource(source);
    const allowed = [
      ...HEAD_KEYS,
      ...(kind === 'ParserTemplate' ? PARSER_TEMPLATE_KEYS : PROJECT_TEMPLATE_KEYS),
    ];
    let problem = false;
    for (const pair of root.items) {
      if (!yaml().isScalar(pair.key) || typeof pair.key.value !== 'string') continue;
      const key = pair.key.value;
      if (allowed.includes(key) || isExtensionKey(key)) continue;
      const near = suggestNearest(key, allowed);
      diagnostics.push(
        at(place, [key], 'key', 'manifest.unknown-key', `unknown key "${key}" in a ${kind}`, {
          hint: near !== undefined ? `did you mean "${near}"?` : `allowed keys: ${allowed.join(', ')}`,
        }),
      );
    }
    const name = writtenString(root.get('name', true));
    const parent = root.has('extends') ? writtenString(root.get('extends', true)) : null;
    if (name === undefined) {
      diagnostics.push(
        at(
          place,
          ['name'],
          'value',
          'manifest.template',
          `a ${kind} needs a name written out (no references)`,
          {
            hint: 'objects name it with extends:',
          },
        ),
      );
      problem = true;
    }
    if (parent === undefined) {
      diagnostics.push(
        at(
          place,
          ['extends'],
          'value',
          'manifest.template',
          'extends takes a template name written out (no references)',
        ),
      );
      problem = true;
    }
    if (problem || name === undefined) continue;
    const template: Template = {
      kind,
      name,
      source,
      ...(parent !== null && parent !== undefined ? { extends: parent } : {}),
      scoped: hasScopedReference(String(source.doc)),
    };
    all.push(template);
    const key = `${kind}/${name}`;
    const twin = registry.templates.get(key);
    if (twin !== undefined) {
      for (const [one, other] of [
        [template, twin],
        [twin, template],
      ] as const) {
        const pos = locate(other.source, ['name']);
        diagnostics.push(
          at(
            documentSource(one.source),
            ['name'],
            'value',
            'manifest.duplicate-name',
            `duplicate ${kind} name "${name}": also declared at ${other.source.file}:${pos.line}:${pos.column}`,
            {
              hint: 'template names are unique per kind; rename one of them',
            },
          ),
        );
      }
      registry.broken.add(template);
      registry.broken.add(twin);
      continue;
    }
    registry.templates.set(key, template);
  }
  for (const template of all) {
    if (template.extends === undefined || registry.broken.has(template)) continue;
    const problem = parentProblem(registry, template.kind, template.extends);
    if (problem !== undefined) {
      diagnostics.push(
        at(
          documentSource(template.source),
          ['extends'],
          'value',
          'manifest.extends',
          problem.message,
          problem.extra,
        ),
      );
      registry.broken.add(template);
    }
  }
  for (const template of all) {
    const cycle = cycleFrom(registry, template);
    if (cycle === undefined) continue;
    registry.broken.add(template);
    diagnostics.push(
      at(
        documentSource(template.source),
        ['extends'],
        'value',
        'manifest.extends-cycle',
        `extends forms a cycle: ${cycle.join(' -> ')}`,
        {
          hint: 'a template cannot extend itself, directly or through others; remove one extends of the cycle',
        },
      ),
    );
  }
  // A template built on a broken one is broken too; its objects are skipped, the cause is reported once.
  for (const template of all) {
    const seen = new Set<Template>();
    let current: Template | undefined = template;
    while (current !== undefined && !seen.has(current)) {
      seen.add(current);
      if (registry.broken.has(current)) {
        registry.broken.add(template);
        break;
      }
      current =
        current.extends !== undefined
          ? registry.templates.get(`${current.kind}/${current.extends}`)
          : undefined;
    }
  }
  return registry;
}

/** What is wrong with naming `name` as the template of something of this kind, if anything. */
export function parentProblem(
  registry: TemplateRegistry,
  kind: TemplateKind,
  name: string,
): { message: string; extra: { hint: string } } | undefined {
  if (registry.templates.has(`${kind}/${name}`)) return undefined;
  const other: TemplateKind = kind === 'ParserTemplate' ? 'ProjectTemplate' : 'ParserTemplate';
  if (registry.templates.has(`${other}/${name}`)) {
    return {
      message: `"${name}" is a ${other}; this extends needs a ${kind}`,
      extra: { hint: `a Parser extends a ParserTemplate, a Project a ProjectTemplate` },
    };
  }
  const known = [...registry.templates.values()].filter((t) => t.kind === kind).map((t) => t.name);
  const near = suggestNearest(name, known);
  return {
    message: `unknown ${kind} "${name}"`,
    extra: {
      hint:
        near !== undefined
          ? `did you mean "${near}"?`
          : known.length > 0
            ? `known: ${known.sort().join(', ')}`
            : `no ${kind} is in the files read; templates are read from the same paths as the manifests`,
    },
  };
}

/** The names around a cycle that starts and ends at this template, or undefined when its chain ends. */
function cycleFrom(registry: TemplateRegistry, start: Template): string[] | undefined {
  const names = [start.name];
  let current = start;
  for (let i = 0; i <= registry.templates.size; i++) {
    if (current.extends === undefined) return undefined;
    const next = registry.templates.get(`${current.kind}/${current.extends}`);
    if (next === undefined) return undefined;
    names.push(next.name);
    if (next === start) return names;
    current = next;
  }
  return undefined;
}

/** The chain of templates an object extends, nearest first; the registry has checked it ends. */
export function templateChain(registry: TemplateRegistry, kind: TemplateKind, name: string): Template[] {
  const chain: Template[] = [];
  let current = registry.templates.get(`${kind}/${name}`);
  while (current !== undefined && !chain.includes(current)) {
    chain.push(current);
    current =
      current.extends !== undefined ? registry.templates.get(`${kind}/${current.extends}`) : undefined;
  }
  return chain;
}

/**
 * A template's contribution to one object: its data after interpolation, without its head and `x-` keys. A
 * template that reads variables or for_each values is interpolated for each object, in that object's scope.
 */
export function templateLayer(
  template: Template,
  scope: ReferenceScope,
): { layer: SourceLayer; diagnostics: Diagnostic[]; failed: boolean } {
  // Diagnostics of a template read once are reported once, by its first user.
  if (!template.scoped && template.cached !== undefined) return { ...template.cached, diagnostics: [] };
  const source = template.scoped ? copyDocument(template.source) : template.source;
  const diagnostics = interpolateDocument(source, scope);
  const converted = documentToData(source);
  if ('diagnostic' in converted) {
    diagnostics.push(converted.diagnostic);
    const failed = { layer: { source, data: {} }, failed: true };
    if (!template.scoped) template.cached = failed;
    return { ...failed, diagnostics };
  }
  const data = isRecord(converted.data) ? converted.data : {};
  const body = Object.fromEntries(
    Object.entries(data).filter(([key]) => !HEAD_KEYS.includes(key) && !isExtensionKey(key)),
  );
  const layer = { source, data: body };
  const failed = diagnostics.some((d) => d.severity === 'error');
  if (!template.scoped) template.cached = { layer, failed };
  return { layer, diagnostics, failed };
}

/** A string written out in the YAML (no `${…}`), undefined when it is anything else. */
function writtenString(node: unknown): string | undefined {
  if (
    !yaml().isScalar(node) ||
    typeof node.value !== 'string' ||
    node.value === '' ||
    node.value.includes('${')
  )
    return undefined;
  return node.value;
}
