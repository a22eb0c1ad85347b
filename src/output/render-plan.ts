import type { FieldChange } from '../plan/diff-fields.js';
import type { Plan, ResourceChange } from '../plan/model.js';
import { adoptsLiveObject } from '../plan/model.js';
import { plannedRequests } from '../plan/plan-json.js';
import type { Colors } from './colors.js';

const SYMBOL: Record<ResourceChange['action'], string> = {
  create: '+',
  update: '~',
  replace: '-/+',
  delete: '-',
  archive: '-',
  adopt: '<=',
  forget: 'x',
};

/** `2 to create, 1 to update (1 regeneration, ~30,000 credits), 1 to archive`, or `No changes.` */
export function summarisePlan(plan: Plan): string {
  const s = plan.summary;
  const forget = plan.resource_changes.filter((c) => c.action === 'forget').length;
  const parts = [
    s.adopt > 0 ? `${s.adopt} to adopt` : '',
    s.create > 0 ? `${s.create} to create` : '',
    s.update > 0 ? `${s.update} to update` : '',
    s.replace > 0 ? `${s.replace} to replace` : '',
    s.delete > 0 ? `${s.delete} to delete` : '',
    s.archive > 0 ? `${s.archive} to archive` : '',
    forget > 0 ? `${forget} to drop from state` : '',
  ].filter((p) => p !== '');
  if (parts.length === 0) return 'No changes. The live services match the manifests.';
  const costs =
    s.regenerations > 0
      ? ` (${s.regenerations} ${s.regenerations === 1 ? 'regeneration' : 'regenerations'}, ~${s.estimated_credits.toLocaleString('en-US')} credits)`
      : ' (no regeneration, no credits)';
  return `Plan: ${parts.join(', ')}${costs}.`;
}

/** The plan for a person at a terminal or in a CI log, Terraform-style. */
export function renderPlan(plan: Plan, colors: Colors): string {
  const lines: string[] = [];
  lines.push(colors.bold(summarisePlan(plan)));
  if (plan.drift.length > 0) {
    lines.push('', colors.yellow('Drift: changed outside scrapeform'));
    for (const d of plan.drift) lines.push(`  ${colors.yellow('!')} ${d.address}: ${d.message}`);
  }
  const ordered = [...plan.resource_changes].sort((a, b) => Number(b.destructive) - Number(a.destructive));
  if (ordered.length > 0) lines.push('');
  for (const change of ordered) lines.push(...renderChange(change, colors), '');
  const breaking = plan.resource_changes.filter((c) => c.breaking.length > 0);
  if (breaking.length > 0) {
    lines.push(colors.magenta('Changes consumers of the results will notice:'));
    for (const c of breaking) lines.push(`  ${c.address}: ${c.breaking.join('; ')}`);
    lines.push('');
  }
  for (const warning of plan.warnings) lines.push(`${colors.yellow('warning:')} ${warning}`);
  return lines.join('\n').replace(/\n+$/, '');
}

function renderChange(change: ResourceChange, colors: Colors): string[] {
  const paint = change.destructive
    ? colors.red
    : change.action === 'create'
      ? colors.green
      : change.action === 'update'
        ? colors.yellow
        : colors.cyan;
  const id = change.id !== null ? ` (${change.id})` : '';
  const requests = plannedRequests(change);
  const calls = requests.length > 0 ? `, ${requests.length} ${requests.length === 1 ? 'call' : 'calls'}` : '';
  const regen = change.regenerates ? ', regenerates' : '';
  const head = `${paint(`${SYMBOL[change.action]} ${change.address}`)}${id}  ${paint(change.action)}${calls}${regen}`;
  const lines = [head];
  for (const reason of change.reasons) lines.push(colors.dim(`    # ${reason}`));
  if (change.destructive)
    lines.push(colors.red(`    ! destructive: needs --allow-destroy or a confirmation`));
  if (adoptsLiveObject(change))
    lines.push(
      colors.red(
        `    ! adopts a live object no state manages: needs --allow-adopt, adopt: true in its manifest, or a confirmation`,
      ),
    );
  if (change.input_summary !== undefined) lines.push(`    inputs: ${change.input_summary}`);
  for (const fc of change.field_changes) lines.push(`    ${renderFieldChange(fc, colors)}`);
  for (const request of requests) {
    const body =
      request.body === undefined ? '' : colors.dim(` ${truncate(JSON.stringify(request.body), 160)}`);
    lines.push(colors.dim(`    ${request.method} ${request.path}`) + body);
  }
  return lines;
}

export function renderFieldChange(fc: FieldChange, colors: Colors): string {
  const note = fc.note !== undefined ? colors.dim(` (${fc.note})`) : '';
  switch (fc.change) {
    case 'add':
      return `${colors.green('+')} ${fc.field}${describe(fc.after)}`;
    case 'remove':
      return `${colors.red('-')} ${fc.field}${note}`;
    case 'rename':
      return `${colors.cyan('→')} renamed ${fc.from ?? '?'} -> ${fc.field} (free, immediate)${note}`;
    case 'modify': {
      const parts: string[] = [];
      const before = fc.before;
      const after = fc.after;
      if (before !== undefined && after !== undefined) {
        if (before.description !== after.description)
          parts.push(`description "${before.description}" -> "${after.description}"`);
        if (before.type !== after.type)
          parts.push(`type ${before.type ?? '(none)'} -> ${after.type ?? '(none)'}`);
        if (before.selector !== after.selector)
          parts.push(`selector ${before.selector ?? '(none)'} -> ${after.selector ?? '(none)'}`);
      } else if (after !== undefined) {
        parts.push(`description "${after.description}"`);
      }
      return `${colors.yellow('~')} ${fc.field}: ${parts.join(', ')}${note}`;
    }
    default:
      return fc.field;
  }
}

function describe(definition: FieldChange['after']): string {
  if (definition === undefined) return '';
  const extras = [
    definition.type,
    definition.selector !== undefined ? `selector ${definition.selector}` : undefined,
  ].filter((x) => x !== undefined);
  return `${extras.length > 0 ? ` (${extras.join(', ')})` : ''}: "${truncate(definition.description, 80)}"`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
