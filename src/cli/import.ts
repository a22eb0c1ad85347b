import { access, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import type { LiveParserDetails, LiveProject } from '../api/live.js';
import { ScrapeformError } from '../errors.js';
import { loadManifests } from '../manifest/load-manifests.js';
import { normaliseParser, normaliseProject } from '../manifest/normalise.js';
import { PLACEHOLDER_DESCRIPTION, PROJECT_TYPES } from '../model/vocabulary.js';
import type { WrittenField, WrittenParser, WrittenProject } from '../manifest/schemas.js';
import { projectPayload } from '../plan/build-plan.js';
import type { ResourceState } from '../state/model.js';
import type { RunCommand } from './io.js';
import { addApiFlags, openServicesFromFlags } from './shared-flags.js';
import type { ApiFlags } from './shared-flags.js';

const SCHEMA_FILE = fileURLToPath(new URL('../../schemas/scrapeform.schema.json', import.meta.url));

interface ImportFlags extends ApiFlags {
  out: string;
  filter?: string;
}

interface Planned {
  file: string;
  text: string;
  address: string;
  resource: ResourceState;
}

export function registerImport(program: Command, run: RunCommand): void {
  const command = program
    .command('import')
    .description('write manifests for live parsers and projects not yet managed, and record them in state')
    .option('--out <dir>', 'folder to write the manifests to', '.')
    .option('--filter <glob>', 'only objects whose name matches, such as "books-*"');
  addApiFlags(command).action(async (flags: ImportFlags) =>
    run(async (ctx) => {
      const services = await openServicesFromFlags(ctx, flags);
      try {
        const lock = await services.backend.lock('import');
        try {
          const state = await services.backend.read();
          const managed = new Set(Object.values(state.resources).map((r) => String(r.id)));
          const existing = await loadManifests({ paths: [flags.out], env: ctx.io.env }).catch(
            () => undefined,
          );
          const declared = new Set(
            [...(existing?.parsers ?? []), ...(existing?.projects ?? [])].map((o) => o.address),
          );
          const matches = globMatcher(flags.filter);
          const [parsers, projects] = await Promise.all([
            services.clients.parsers.list(),
            services.clients.projects.list(),
          ]);
          const planned: Planned[] = [];
          for (const summary of parsers) {
            if (managed.has(summary.id) || !matches(summary.name) || declared.has(`parser.${summary.name}`))
              continue;
            if (summary.status !== 'FINISHED') {
              ctx.log(
                ctx.colors.yellow(
                  `skipped parser "${summary.name}" (${summary.id}): its latest version is ${summary.status}`,
                ),
              );
              continue;
            }
            planned.push(importParser(flags.out, await services.clients.parsers.get(summary.id)));
          }
          for (const project of projects) {
            const name = project.name ?? `project-${project.id}`;
            if (managed.has(String(project.id)) || !matches(name) || declared.has(`project.${name}`))
              continue;
            const imported = importProject(flags.out, project, name);
            if (typeof imported === 'string') ctx.log(ctx.colors.yellow(imported));
            else planned.push(imported);
          }
          const names = new Set<string>();
          for (const p of planned) {
            if (names.has(p.address))
              throw new ScrapeformError(
                'import.duplicate-name',
                `two live objects would both become ${p.address}; rename one in the service first, or import with --filter`,
              );
            names.add(p.address);
            if (await exists(p.file))
              throw new ScrapeformError(
                'import.file-exists',
                `refusing to overwrite ${p.file}; nothing was written`,
                { hint: 'move it away, or import into another folder with --out' },
              );
          }
          await mkdir(flags.out, { recursive: true });
          for (const p of planned) {
            await writeFile(p.file, p.text);
            state.resources[p.address] = p.resource;
          }
          if (planned.length > 0) await services.backend.write(state);
          ctx.print(
            planned.length === 0
              ? 'Nothing to import: every live object is managed or declared.'
              : planned.map((p) => `imported ${p.address} -> ${p.file}`).join('\n'),
          );
          if (planned.some((p) => p.resource.kind === 'Parser')) {
            ctx.log(
              'The service does not return descriptions: each imported field has a placeholder that validate warns about until you describe it.',
            );
          }
          return 'ok';
        } finally {
          await lock.release();
        }
      } finally {
        await services.close();
      }
    }),
  );
}

function importParser(out: string, details: LiveParserDetails): Planned {
  const fields: Record<string, WrittenField> = {};
  const byName = new Map<string, WrittenField>();
  for (const field of details.fields) {
    const entry: WrittenField = { description: PLACEHOLDER_DESCRIPTION };
    byName.set(field.name, entry);
    const cut = field.name.lastIndexOf('.');
    const parent = cut < 0 ? undefined : byName.get(field.name.slice(0, cut));
    if (parent !== undefined) {
      parent.fields ??= {};
      parent.fields[field.name.slice(cut + 1)] = entry;
    } else {
      fields[field.name] = entry;
    }
  }
  const written: WrittenParser = {
    kind: 'Parser',
    name: details.name,
    urls: (details.exampleResult ?? []).map((e) => e.url),
    ...(Object.keys(fields).length > 0 ? { fields } : {}),
  };
  const file = path.join(out, `parser-${slug(details.name)}.yaml`);
  const desired = normaliseParser(written, { file, line: 1, column: 1 });
  return {
    file,
    text: document(file, written),
    address: desired.address,
    resource: {
      kind: 'Parser',
      id: details.id,
      name: details.name,
      version: details.version,
      definition: { urls: desired.urls, scraperParams: {}, fields: desired.fields },
      descriptionsKnown: false,
    },
  };
}

function importProject(out: string, live: LiveProject, name: string): Planned | string {
  const input = live.projectInput as { type?: string; list?: string[]; url?: string } | null | undefined;
  if (!(PROJECT_TYPES as readonly string[]).includes(live.projectType ?? ''))
    return `skipped project "${name}" (${live.id}): unknown projectType ${String(live.projectType)}`;
  const apiParams = live.apiParams ?? {};
  if (Object.values(apiParams).some((v) => v !== null && typeof v === 'object'))
    return `skipped project "${name}" (${live.id}): apiParams hold nested values a manifest cannot express`;
  const interval = live.scrapingInterval;
  const written: WrittenProject = {
    kind: 'Project',
    name,
    projectType: live.projectType as WrittenProject['projectType'],
    projectInput:
      input?.type === 'webhook_input'
        ? { type: 'webhook_input', url: input.url ?? '' }
        : { type: 'list', list: input?.list ?? [] },
    ...(interval !== null && interval !== undefined && interval !== 'once'
      ? { scrapingInterval: interval }
      : {}),
    ...(live.schedulingEnabled !== undefined ? { schedulingEnabled: live.schedulingEnabled } : {}),
    ...(live.output_format === 'JSON' || live.output_format === 'CSV'
      ? { output_format: live.output_format }
      : {}),
    ...(live.webhookOutput ? { webhookOutput: live.webhookOutput as WrittenProject['webhookOutput'] } : {}),
    ...(live.notificationConfig
      ? { notificationConfig: live.notificationConfig as WrittenProject['notificationConfig'] }
      : {}),
    ...(Object.keys(apiParams).length > 0
      ? { apiParams: apiParams as Record<string, string | number | boolean> }
      : {}),
  };
  const file = path.join(out, `project-${slug(name)}.yaml`);
  const desired = normaliseProject(written, { file, line: 1, column: 1 });
  return {
    file,
    text: document(file, written),
    address: desired.address,
    resource: { kind: 'Project', id: live.id, name, definition: projectPayload(desired) },
  };
}

/** A manifest as a person would write it: the schema line, then the document, no line wrapping. */
function document(file: string, value: WrittenParser | WrittenProject): string {
  const schema = path
    .relative(path.dirname(path.resolve(file)), SCHEMA_FILE)
    .split(path.sep)
    .join('/');
  return `# yaml-language-server: $schema=${schema}\n# Imported by scrapeform import.\n${stringify({ apiVersion: 'scrapeform/v1', ...value }, { lineWidth: 0 })}`;
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'unnamed'
  );
}

function globMatcher(glob: string | undefined): (name: string) => boolean {
  if (glob === undefined) return () => true;
  const pattern = new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  return (name) => pattern.test(name);
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
