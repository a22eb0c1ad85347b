import { PIPELINE_SERVICE } from '../api/transport-contract.js';
import { ProjectSchema } from '../api/wire-schemas.js';
import { PROJECT_FIELDS } from '../model/project-fields.js';
import type { DoctorCheck, DoctorReading } from '../output/render-doctor.js';
import { answerProblem, failedCall, listOnce } from './doctor-list-check.js';
import type { Get } from './doctor-list-check.js';

export async function checkProjects(
  baseUrl: string,
  get: Get,
  checks: DoctorCheck[],
  readings: Map<string, DoctorReading>,
): Promise<void> {
  const base = `${baseUrl.replace(/\/+$/, '')}/api/projects`;
  const parsedFirst = await listOnce(get, PIPELINE_SERVICE, base, 'projects', checks, readings, (items) => {
    const first = items[0];
    const parsed = ProjectSchema.safeParse(first);
    return first !== undefined && !parsed.success
      ? {
          problem: `the first project of the list is not one plan can read: ${answerProblem(parsed.error)}`,
        }
      : { value: parsed };
  });
  if (parsedFirst === undefined) return;
  if (!parsedFirst.success) {
    checks.push({
      name: 'projects.details',
      status: 'skipped',
      message: 'the account has no project to read',
    });
    readings.set('sparse-projects', { name: 'sparse-projects', seen: null, message: 'no project to read' });
    return;
  }
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
