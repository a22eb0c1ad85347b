import { isWaitingToRun } from '../api/job-status.js';
import { listKeyOf } from '../api/read-list.js';
import { PIPELINE_SERVICE } from '../api/transport-contract.js';
import { ProjectSchema } from '../api/wire-schemas.js';
import { PROJECT_FIELDS } from '../model/project-fields.js';
import type { DoctorCheck, DoctorReading } from '../output/render-doctor.js';
import { answerProblem, failedCall, listOnce } from './doctor-list-check.js';
import { AHEAD_MS } from './run-guard.js';
import type { Get, ListReaders } from './doctor-list-check.js';

export async function checkProjects(
  baseUrl: string,
  readers: ListReaders,
  checks: DoctorCheck[],
  readings: Map<string, DoctorReading>,
): Promise<void> {
  const { get } = readers;
  const base = `${baseUrl.replace(/\/+$/, '')}/api/projects`;
  const parsedFirst = await listOnce(
    readers,
    PIPELINE_SERVICE,
    base,
    'projects',
    checks,
    readings,
    (items) => {
      const first = items[0];
      const parsed = ProjectSchema.safeParse(first);
      return first !== undefined && !parsed.success
        ? {
            problem: `the first project of the list is not one plan can read: ${answerProblem(parsed.error)}`,
          }
        : { value: parsed };
    },
  );
  if (parsedFirst === undefined) return;
  if (!parsedFirst.success) {
    checks.push({
      name: 'projects.details',
      status: 'skipped',
      message: 'the account has no project to read',
    });
    readings.set('sparse-projects', { name: 'sparse-projects', seen: null, message: 'no project to read' });
    readings.set('queued-jobs', { name: 'queued-jobs', seen: null, message: 'no project to read jobs of' });
    return;
  }
  readings.set(
    'queued-jobs',
    await readJobStatuses(get, `${base}/${encodeURIComponent(String(parsedFirst.data.id))}`),
  );
  let project: Record<string, unknown>;
  try {
    const response = await get(
      PIPELINE_SERVICE,
      `${base}/${encodeURIComponent(String(parsedFirst.data.id))}`,
    );
    const body = ProjectSchema.safeParse(response.body);
    if (!body.success) {
      checks.push({
        name: 'projects.details',
        status: 'fail',
        message: `project ${parsedFirst.data.id} by id is not one plan can read: ${answerProblem(body.error)}`,
      });
      return;
    }
    project = body.data as Record<string, unknown>;
  } catch (error) {
    checks.push(failedCall('projects.details', error));
    return;
  }
  // Fields scrapeform sends that the answer leaves out: compared with the last apply instead (issue 13).
  const absent = Object.entries(PROJECT_FIELDS)
    .filter(([key, rule]) => rule.compared && key !== 'name' && rule.read(project) === undefined)
    .map(([key]) => key);
  const hookInOutput =
    project.webhookOutput === undefined &&
    (project.projectOutput as { type?: unknown } | null | undefined)?.type === 'webhook';
  const camel = project.output_format === undefined && project.outputFormat !== undefined;
  const notes = [
    absent.length > 0 ? `leaves out ${absent.join(', ')}` : '',
    hookInOutput ? 'reports the webhook under projectOutput' : '',
    camel ? 'spells the format outputFormat' : '',
  ].filter((n) => n !== '');
  readings.set('sparse-projects', {
    name: 'sparse-projects',
    seen: notes.length > 0,
    message:
      notes.length > 0
        ? `the project answer ${notes.join('; ')}; scrapeform compares what is left out with its last apply`
        : 'the project answer carries every field scrapeform sends',
  });
  checks.push({
    name: 'projects.details',
    status: 'ok',
    message: `project ${parsedFirst.data.id} by id: ${Object.keys(project).sort().join(', ')}`,
  });
}

/**
 * The queued-jobs reading, from the first page of the first project's jobs: whether a job is listed waiting to run
 * (queued, scheduled: isWaitingToRun), which `run` holds a start back behind. Read-only, like every doctor call.
 */
async function readJobStatuses(get: Get, projectUrl: string): Promise<DoctorReading> {
  const name = 'queued-jobs';
  let body: unknown;
  try {
    body = (await get(PIPELINE_SERVICE, `${projectUrl}/jobs`)).body;
  } catch (error) {
    return {
      name,
      seen: null,
      message: `its jobs could not be listed: ${failedCall('projects.jobs', error).message}`,
    };
  }
  const envelope = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const found = Array.isArray(body) ? undefined : listKeyOf(envelope, 'jobs');
  const items = Array.isArray(body)
    ? body
    : found !== undefined && 'key' in found
      ? envelope[found.key]
      : undefined;
  if (!Array.isArray(items))
    return { name, seen: null, message: 'its job list holds no array scrapeform can find' };
  const statuses = [
    ...new Set(items.map((j) => String((j as { status?: unknown } | null)?.status ?? '(none)'))),
  ].sort();
  if (statuses.length === 0) return { name, seen: null, message: 'the first project has no job to read' };
  const waiting = statuses.filter(isWaitingToRun);
  return waiting.length > 0
    ? {
        name,
        seen: true,
        message: `jobs listed waiting to run: ${waiting.join(', ')}; run holds a start back behind one unless its supposedToRunAt or scheduledAt is more than ${AHEAD_MS / 60_000} minutes ahead`,
      }
    : { name, seen: false, message: `job statuses on the first page: ${statuses.join(', ')}` };
}
