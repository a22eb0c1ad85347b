import { ScrapeformError } from '../errors.js';
import type { DriftReport } from '../plan/drift.js';
import type { Plan } from '../plan/model.js';
import type { Colors } from './colors.js';
import { renderApplyHuman, renderApplyJson, renderApplyMarkdown } from './render-apply.js';
import type { ApplyReport } from './render-apply.js';
import { renderDoctorHuman, renderDoctorJson } from './render-doctor.js';
import type { DoctorReport } from './render-doctor.js';
import { renderDriftHuman, renderDriftJson, renderDriftMarkdown } from './render-drift.js';
import { renderJobsHuman, renderJobsJson } from './render-jobs.js';
import type { JobsView } from './render-jobs.js';
import { renderJunit } from './render-junit.js';
import { renderManagedIdsHuman, renderManagedIdsJson } from './render-managed-ids.js';
import type { ManagedIds } from './render-managed-ids.js';
import { renderPlan } from './render-plan.js';
import { renderPlanJson } from './render-plan-json.js';
import { renderPlanMarkdown } from './render-plan-markdown.js';
import { renderStatusHuman, renderStatusJson } from './render-status.js';
import type { StatusRow } from './render-status.js';
import { renderTestReportHuman, renderTestReportJson } from './render-test-report.js';
import type { TestReport } from './render-test-report.js';

/** The formats a command can print; each command offers the ones its row in RENDERERS has. */
export const RENDER_FORMATS = ['human', 'json', 'markdown', 'junit'] as const;
export type RenderFormat = (typeof RENDER_FORMATS)[number];

/** What each command renders. */
export interface Renderable {
  plan: Plan;
  apply: ApplyReport;
  status: StatusRow[];
  jobs: JobsView;
  test: TestReport;
  ids: ManagedIds;
  doctor: DoctorReport;
  drift: DriftReport;
}

type Renderer<T> = (value: T, colors: Colors) => string;
type RendererTable = { [K in keyof Renderable]: Partial<Record<RenderFormat, Renderer<Renderable[K]>>> };

/** Every output of every command, in one table: a format a command offers is a row entry here, nowhere else. */
const RENDERERS = {
  plan: { human: renderPlan, json: renderPlanJson, markdown: (plan) => renderPlanMarkdown(plan) },
  apply: {
    human: renderApplyHuman,
    json: renderApplyJson,
    markdown: (report) => renderApplyMarkdown(report),
  },
  status: { human: renderStatusHuman, json: renderStatusJson },
  jobs: { human: renderJobsHuman, json: renderJobsJson },
  test: { human: renderTestReportHuman, json: renderTestReportJson, junit: renderJunit },
  ids: { human: renderManagedIdsHuman, json: renderManagedIdsJson },
  doctor: { human: renderDoctorHuman, json: renderDoctorJson },
  drift: {
    human: renderDriftHuman,
    json: renderDriftJson,
    markdown: (report) => renderDriftMarkdown(report),
  },
} satisfies RendererTable;

/** The formats one kind of output offers. */
export function formatsOf(kind: keyof Renderable): RenderFormat[] {
  return RENDER_FORMATS.filter((f) => f in RENDERERS[kind]);
}

/** Renders `value` in `format`; a format the command does not offer is a usage error naming the ones it does. */
export function renderOutput<K extends keyof Renderable>(
  kind: K,
  format: RenderFormat,
  value: Renderable[K],
  colors: Colors,
): string {
  const table: RendererTable = RENDERERS;
  const render = table[kind][format];
  if (render === undefined) {
    throw new ScrapeformError(
      'cli.usage',
      `${kind} cannot be printed as ${format}; it can be: ${formatsOf(kind).join(', ')}`,
    );
  }
  return render(value, colors);
}
