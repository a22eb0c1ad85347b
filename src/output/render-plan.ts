import type { FieldChange } from '../plan/diff-fields.js';
import type { Plan, PlannedMove, ResourceChange } from '../plan/model.js';
import { adoptsLiveObject } from '../plan/model.js';
import { plannedRequests } from '../plan/plan-json.js';
import type { Colors } from './colors.js';
import { projectUpdateView } from './diff-values.js';
import type { ValueChange } from './diff-values.js';
import { printable, quoted } from './escape-text.js';

const SYMBOL: Record<ResourceChange['action'], string> = {
  create: '+',
  update: '~',
  replace: '-/+',
  delete: '-',
  archive: '-',
  adopt: '<=',
  record: '~',
  forget: 'x',
};

/** `2 to create, 1 to update (1 regeneration, ~30,000 credits), 1 to archive`, or `No changes.` */
export function summarisePlan(plan: Plan): string {
  const s = plan.summary;
  const forget = plan.resource_changes.filter((c) => c.action === 'forget').length;
  const record = plan.resource_changes.filter((c) => c.action === 'record').length;
  const moves = plan.moved?.length ?? 0;
  const parts = [
    moves > 0 ? `${moves} to move` : '',
    s.adopt > 0 ? `${s.adopt} to adopt` : '',
    s.create > 0 ? `${s.create} to create` : '',
    s.update > 0 ? `${s.update} to update` : '',
    s.replace > 0 ? `${s.replace} to replace` : '',
    s.delete > 0 ? `${s.delete} to delete` : '',
    s.archive > 0 ? `${s.archive} to archive` : '',
    forget > 0 ? `${forget} to drop from state` : '',
    record > 0 ? `${record} to record in state (values confirmed live)` : '',
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
    for (const d of plan.drift)
      lines.push(`  ${colors.yellow('!')} ${printable(d.address)}: ${printable(d.message)}`);
  }
  if (plan.moved !== undefined && plan.moved.length > 0) {
    lines.push('', colors.cyan('Moved by moved: hints (state only, no call)'));
    for (const m of plan.moved) lines.push(`  ${colors.cyan('→')} ${describeMove(m)}`);
  }
  const ordered = [...plan.resource_changes].sort((a, b) => Number(b.destructive) - Number(a.destructive));
  if (ordered.length > 0) lines.push('');
  for (const change of ordered) lines.push(...renderChange(change, colors), '');
  const breaking = plan.resource_changes.filter((c) => c.breaking.length > 0);
  if (breaking.length > 0) {
    lines.push(colors.magenta('Changes consumers of the results will notice:'));
    for (const c of breaking) lines.push(`  ${printable(c.address)}: ${printable(c.breaking.join('; '))}`);
    lines.push('');
  }
  for (const warning of plan.warnings) lines.push(`${colors.yellow('warning:')} ${printable(warning)}`);
  return lines.join('\n').replace(/\n+$/, '');
}

/** `parser.a -> parser.b (id, live name "a")`: one state entry a `moved:` hint moves. */
export function describeMove(move: PlannedMove): string {
  return `${printable(move.from)} -> ${printable(move.to)} (${printable(String(move.id))}, live name ${quoted(move.name)})`;
}

function renderChange(change: ResourceChange, colors: Colors): string[] {
  const paint = change.destructive
    ? colors.red
    : change.action === 'create'
      ? colors.green
      : change.action === 'update'
        ? colors.yellow
        : colors.cyan;
  const id = change.id !== null ? ` (${printable(String(change.id))})` : '';
  const requests = plannedRequests(change);
  const calls = requests.length > 0 ? `, ${requests.length} ${requests.length === 1 ? 'call' : 'calls'}` : '';
  const regen = change.regenerates ? ', regenerates' : '';
  const head = `${paint(`${SYMBOL[change.action]} ${printable(change.address)}`)}${id}  ${paint(change.action)}${calls}${regen}`;
  const lines = [head];
  for (const reason of change.reasons) lines.push(colors.dim(`    # ${printable(reason)}`));
  if (change.origin !== undefined) lines.push(colors.dim(`    # from ${printable(change.origin)}`));
  if (change.destructive)
    lines.push(colors.red(`    ! destructive: needs --allow-destroy or a confirmation`));
  if (adoptsLiveObject(change))
    lines.push(
      colors.red(
        `    ! adopts a live object no state manages: needs --allow-adopt, adopt: true in its manifest, or a confirmation`,
      ),
    );
  if (change.input_summary !== undefined) lines.push(`    inputs: ${printable(change.input_summary)}`);
  for (const fc of change.field_changes) lines.push(`    ${renderFieldChange(fc, colors)}`);
  if (change.kind === 'Project' && change.action === 'update')
    for (const vc of projectUpdateView(change)) lines.push(`    ${renderValueChange(vc, colors)}`);
  for (const request of requests) {
    const body =
      request.body === undefined
        ? ''
        : colors.dim(` ${truncate(printable(JSON.stringify(request.body)), 160)}`);
    lines.push(colors.dim(`    ${request.method} ${printable(request.path)}`) + body);
  }
  return lines;
}

export function renderFieldChange(fc: FieldChange, colors: Colors): string {
  const note = fc.note !== undefined ? colors.dim(` (${printable(fc.note)})`) : '';
  const field = printable(fc.field);
  switch (fc.change) {
    case 'add':
      return `${colors.green('+')} ${field}${describe(fc.after)}`;
    case 'remove':
      return `${colors.red('-')} ${field}${note}`;
    case 'rename':
      return `${colors.cyan('→')} renamed ${printable(fc.from ?? '?')} -> ${field} (free, immediate)${note}`;
    case 'modify': {
      const parts: string[] = [];
      const before = fc.before;
      const after = fc.after;
      if (before !== undefined && after !== undefined) {
        if (before.description !== after.description)
          parts.push(`description ${quoted(before.description)} -> ${quoted(after.description)}`);
        if (before.type !== after.type)
          parts.push(`type ${before.type ?? '(none)'} -> ${after.type ?? '(none)'}`);
        if (before.selector !== after.selector)
          parts.push(`selector ${optional(before.selector)} -> ${optional(after.selector)}`);
      }
      // Adopted (the old definition was never seen) or reasserted unchanged: what is sent.
      if (parts.length === 0 && after !== undefined) parts.push(`description ${quoted(after.description)}`);
      return `${colors.yellow('~')} ${field}: ${parts.join(', ')}${note}`;
    }
    default:
      return field;
  }
}

/** One leaf of a project value, old -> new: `~ notificationConfig.notifyOnSuccess: "never" -> "daily"`. */
export function renderValueChange(vc: ValueChange, colors: Colors): string {
  const path = printable(vc.path);
  switch (vc.change) {
    case 'add':
      return `${colors.green('+')} ${path}: ${showValue(vc.after)}`;
    case 'remove':
      return `${colors.red('-')} ${path}: ${showValue(vc.before)}`;
    case 'modify':
      return 'before' in vc
        ? `${colors.yellow('~')} ${path}: ${showValue(vc.before)} -> ${showValue(vc.after)}`
        : `${colors.yellow('~')} ${path}: ${showValue(vc.after)}`;
  }
}

function showValue(value: unknown): string {
  return value === undefined ? '(none)' : truncate(printable(JSON.stringify(value)), 160);
}

function optional(text: string | undefined): string {
  return text === undefined ? '(none)' : printable(text);
}

function describe(definition: FieldChange['after']): string {
  if (definition === undefined) return '';
  const extras = [
    definition.type,
    definition.selector !== undefined ? `selector ${printable(definition.selector)}` : undefined,
  ].filter((x) => x !== undefined);
  return `${extras.length > 0 ? ` (${extras.join(', ')})` : ''}: ${quoted(truncate(definition.description, 80))}`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
