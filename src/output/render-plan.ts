import type { Plan, PlannedMove, ResourceChange } from '../plan/model.js';
import { adoptsLiveObject, PARTIAL_PLAN_WARNING } from '../plan/model.js';
import { laggingParsers } from '../plan/lagging-version.js';
import { NOT_RETRIED_ENDING, STILL_GENERATING_ENDING } from '../plan/plan-parser-generation.js';
import { plannedRequests } from '../plan/plan-json.js';
import type { PlannedRequest } from '../plan/plan-json.js';
import { detailChange } from './change-details.js';
import type { DetailLine } from './change-details.js';
import type { Colors } from './colors.js';
import { INPUT_ENTRIES_SHOWN } from './diff-input-entries.js';
import { printable, quoted } from './escape-text.js';
import { layoutJson } from './layout-json.js';
import { formatCount } from '../format-count.js';

/** A request body longer than this is laid out on several lines, broken between values, never inside one. */
const BODY_WIDTH = 120;

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

/** Project keys whose change makes a project scrape anew or differently: a run costs credits per page. */
const RUN_KEYS = ['projectType', 'projectInput', 'scrapingInterval', 'schedulingEnabled', 'apiParams'];

/**
 * What the plan's project creates, and updates of what a project scrapes or when, will cost once they run: paid
 * per page scraped by the service (public docs: 6 credits for a plain page, more with render or premium), not by
 * this apply. `pages` counts the list inputs' entries of one run each; a webhook input's count is not known.
 */
export function projectRuns(plan: Plan): { projects: number; pages: number; webhookInputs: number } {
  let projects = 0;
  let pages = 0;
  let webhookInputs = 0;
  for (const change of plan.resource_changes) {
    if (change.kind !== 'Project') continue;
    if (change.action !== 'create' && change.action !== 'update') continue;
    if (change.action === 'update' && !RUN_KEYS.some((key) => key in change.changed)) continue;
    projects++;
    const input = change.definition.projectInput as { type?: string; list?: unknown[] } | undefined;
    if (input?.type === 'webhook_input') webhookInputs++;
    else pages += input?.list?.length ?? 0;
  }
  return { projects, pages, webhookInputs };
}

/** The line under the summary when project runs will cost credits (see projectRuns); undefined when none. */
export function describeProjectRuns(plan: Plan): string | undefined {
  const { projects, pages, webhookInputs } = projectRuns(plan);
  if (projects === 0) return undefined;
  const listed = `${formatCount(pages)} ${pages === 1 ? 'page' : 'pages'} a run`;
  const hooked =
    webhookInputs > 0
      ? ` plus what ${webhookInputs === 1 ? 'a webhook input lists' : `${webhookInputs} webhook inputs list`}`
      : '';
  return `Project runs: the ${projects === 1 ? 'project' : `${projects} projects`} created, or changed in what or when ${projects === 1 ? 'it scrapes, takes' : 'they scrape, take'} ${listed}${hooked}, paid per page as ${projects === 1 ? 'it runs' : 'they run'} (not by this apply; public docs: 6 credits a plain page, more with render or premium).`;
}

/** The parsers a plan holds back, by why: each says "no change" for a parser that is not in line. */
function heldBackParsers(warnings: readonly string[]): {
  lagging: number;
  generating: number;
  failed: number;
  total: number;
} {
  const lagging = laggingParsers(warnings);
  const generating = warnings.filter((w) => w.includes(STILL_GENERATING_ENDING)).length;
  const failed = warnings.filter((w) => w.includes(NOT_RETRIED_ENDING)).length;
  return { lagging, generating, failed, total: lagging + generating + failed };
}

/**
 * Whether a warning holds a parser back (lagging, still generating, FAILED twice): the plan has no change for it
 * though it is not in line, which a reviewer must see next to the summary (render-plan-markdown.ts).
 */
export function holdsBackParser(warning: string): boolean {
  return heldBackParsers([warning]).total > 0;
}

/**
 * `2 to create, 1 to update (1 regeneration, ~30,000 credits), 1 to archive`, or `No changes.`; `No changes planned:`
 * with why when a parser is held back (below a version state records, still generating, FAILED twice).
 */
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
  if (parts.length === 0) {
    const partial = plan.warnings.some((w) => w.startsWith(PARTIAL_PLAN_WARNING));
    // A parser held back is not in line: said, with what to do. Waiting helps a lagging or generating parser; one
    // that FAILED twice waits for a fixed manifest (its warning says so).
    const { lagging, generating, failed, total: held } = heldBackParsers(plan.warnings);
    if (held > 0) {
      const why = [
        lagging > 0 ? `${lagging} ${lagging === 1 ? 'parser lags' : 'parsers lag'} behind state` : '',
        generating > 0
          ? `${generating} ${generating === 1 ? 'parser is' : 'parsers are'} still generating`
          : '',
        failed > 0
          ? `${failed} ${failed === 1 ? 'parser' : 'parsers'} FAILED twice with what the manifests ask for and ${failed === 1 ? 'is' : 'are'} not retried`
          : '',
      ].filter((p) => p !== '');
      const later = lagging + generating > 0 && failed === 0 ? '; plan again later' : '';
      return `No changes planned${partial ? ' among the objects selected (a partial plan)' : ''}: ${why.join(', ')} (see the ${partial || held > 1 ? 'warnings' : 'warning'})${later}.`;
    }
    return partial
      ? 'No changes among the objects selected (a partial plan: see its warning).'
      : 'No changes. The live services match the manifests.';
  }
  // "no credits" would read as free while created or rescheduled projects will scrape pages (describeProjectRuns).
  const runs = projectRuns(plan).projects > 0 ? '; project runs cost credits per page' : '';
  const costs =
    s.regenerations > 0
      ? ` (${s.regenerations} ${s.regenerations === 1 ? 'regeneration' : 'regenerations'}, ~${formatCount(s.estimated_credits)} credits${runs})`
      : runs !== ''
        ? ` (no regeneration${runs})`
        : ' (no regeneration, no credits)';
  return `Plan: ${parts.join(', ')}${costs}.`;
}

/**
 * For the apply report when nothing was applied: the plan's summary line when it says more than that the services
 * match (parsers held back, a partial plan), else nothing.
 */
export function heldBack(plan: Plan): { noChanges?: string } {
  const partial = plan.warnings.some((w) => w.startsWith(PARTIAL_PLAN_WARNING));
  return partial || heldBackParsers(plan.warnings).total > 0 ? { noChanges: summarisePlan(plan) } : {};
}

/**
 * The line under the summary when apply will run `expect` checks after its calls (one parse a URL, which the
 * service may charge): named here since the plan's changes do not list them. Undefined when there are none.
 */
export function describeExpectChecks(plan: Plan): string | undefined {
  const checks = plan.expect_checks ?? [];
  if (checks.length === 0) return undefined;
  const pages = checks.reduce((sum, c) => sum + c.urls.length, 0);
  const each = checks.map((c) => `${c.address} (${c.urls.length})`).join(', ');
  return `Expect checks: after its calls apply parses ${pages} ${pages === 1 ? 'page' : 'pages'} with ${checks.length === 1 ? 'the parser' : `${checks.length} parsers`} it changed, one parse call each (the service may charge them; none with --no-wait): ${each}.`;
}

/** The plan for a person at a terminal or in a CI log, Terraform-style. */
export function renderPlan(plan: Plan, colors: Colors): string {
  const lines: string[] = [];
  for (const part of planParts(plan, colors)) lines.push(...part);
  return lines.join('\n').replace(/\n+$/, '');
}

/**
 * The lines of renderPlan, a part at a time (the summary and what precedes the changes, each change, what follows
 * them), each rendered only when asked for: apply prints a large plan a few changes at a time (plan-in-parts.ts).
 * Joined with line breaks and without the trailing ones, they are renderPlan's text.
 */
export function* planParts(plan: Plan, colors: Colors): Generator<string[], void, undefined> {
  const lines: string[] = [];
  lines.push(colors.bold(summarisePlan(plan)));
  const runs = describeProjectRuns(plan);
  if (runs !== undefined) lines.push(colors.dim(runs));
  const checks = describeExpectChecks(plan);
  if (checks !== undefined) lines.push(colors.dim(printable(checks)));
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
  yield lines;
  for (const change of ordered) yield [...renderChange(change, colors), ''];
  const tail: string[] = [];
  const breaking = plan.resource_changes.filter((c) => c.breaking.length > 0);
  if (breaking.length > 0) {
    tail.push(colors.magenta('Changes consumers of the results will notice:'));
    for (const c of breaking) tail.push(`  ${printable(c.address)}: ${printable(c.breaking.join('; '))}`);
    tail.push('');
  }
  for (const warning of plan.warnings) tail.push(`${colors.yellow('warning:')} ${printable(warning)}`);
  yield tail;
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
  for (const detail of detailChange(change)) lines.push(renderDetail(detail, colors));
  for (const request of requests) lines.push(...renderRequest(request, colors));
  return lines;
}

function renderDetail(detail: DetailLine, colors: Colors): string {
  const indent = detail.depth === 1 ? '        ' : '    ';
  switch (detail.sign) {
    case '+':
      return `${indent}${colors.green('+')} ${detail.text}`;
    case '-':
      return `${indent}${colors.red('-')} ${detail.text}`;
    case '~':
      return `${indent}${colors.yellow('~')} ${detail.text}`;
    case '→':
      return `${indent}${colors.cyan('→')} ${detail.text}`;
    case ' ':
      return colors.dim(`${indent}  ${detail.text}`);
  }
}

/**
 * A call and its whole body: on the call's line when short, else laid out below it, broken between values (a
 * description or URL is never cut; only an input list past INPUT_ENTRIES_SHOWN entries is counted, not listed).
 */
function renderRequest(request: PlannedRequest, colors: Colors): string[] {
  const head = `    ${request.method} ${printable(request.path)}`;
  if (request.body === undefined) return [colors.dim(head)];
  const json = JSON.stringify(request.body) as string | undefined;
  const compact = json === undefined ? '' : printable(json);
  if (head.length + 1 + compact.length <= BODY_WIDTH) return [colors.dim(`${head} ${compact}`)];
  const body = layoutJson(request.body, { width: BODY_WIDTH, maxListItems: INPUT_ENTRIES_SHOWN }, 6, json);
  return [colors.dim(head), ...body.map((l) => colors.dim(l))];
}
