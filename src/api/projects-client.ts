import { READ_CONCURRENCY } from '../model/vocabulary.js';
import { forEachLimited } from '../worker-pool.js';
import { existingNamed } from './api-error.js';
import { unlessGone } from './unless-status.js';
import type { IdsBefore } from './api-error.js';
import { archiveMark } from './archived-project.js';
import { refuseFailureSaid } from './failure-said.js';
import type { LiveJob, LiveProject } from './live.js';
import { readList } from './read-list.js';
import { idNamedIn } from './see-other.js';
import { PIPELINE_SERVICE } from './transport-contract.js';
import type { Transport } from './transport.js';
import type { TransportRequest } from './transport-contract.js';
import { JobSchema, ProjectIdSchema, ProjectSchema } from './wire-schemas.js';
import { pathSegment } from './path-segment.js';

export const DEFAULT_PIPELINE_URL = 'https://datapipeline.scraperapi.com';

/** The body of a project create or update: the project fields of seed 2 (only those sent). */
export type ProjectPayload = Record<string, unknown>;

/**
 * The DataPipeline project service (seed 2). Paths carry `/api`; the key travels in the query string on every
 * call (API-NOTES). Status codes are not documented: any 2xx is taken as success.
 */
export class ProjectsClient {
  private readonly transport: Transport;

  constructor(
    transport: Transport,
    private readonly baseUrl: string = DEFAULT_PIPELINE_URL,
  ) {
    this.transport = transport.forService(PIPELINE_SERVICE);
  }

  private url(...segments: (string | number)[]): string {
    const base = this.baseUrl.replace(/\/+$/, '');
    return `${base}/api/${segments.map(pathSegment).join('/')}`;
  }

  private call(
    method: TransportRequest['method'],
    url: string,
    extra: Partial<TransportRequest> = {},
  ): TransportRequest {
    return {
      method,
      url,
      keyIn: 'query',
      expect: SUCCESS,
      idempotent: method === 'GET' || method === 'DELETE',
      ...extra,
    };
  }

  /** A project as the service answered it: `outputFormat` folded in, the key taken out of its values. */
  private live(project: Parameters<typeof foldProject>[0]): LiveProject {
    return this.transport.withoutKey(foldProject(project));
  }

  /**
   * Every project, whatever the list's wrapping and paging (see readList), each with its name. The seed shows no
   * project answer, so a list may hold only ids (and a type): a project listed without a name is read by id
   * (READ_CONCURRENCY at a time), since projects are adopted, created and recovered by name, and one left nameless
   * would be taken as no project of that name: a duplicate created beside it. One whose read gives no name either
   * (or answers 404 right after the list showed it) is an `api.bad-response`: nothing is planned from the list.
   * A project the list marks archived (archiveMark) is left out: archived projects leave the list (API-NOTES), and
   * one adopted by name would never run again.
   */
  async list(signal?: AbortSignal): Promise<LiveProject[]> {
    const items = await readList(
      this.transport,
      this.call('GET', this.url('projects'), { signal }),
      ProjectSchema,
      'projects',
      { idOf: (p) => p.id },
    );
    const projects = items.map((item) => this.live(item));
    const nameless = projects.flatMap((p, at) => (p.name === undefined ? [at] : []));
    await forEachLimited(nameless, READ_CONCURRENCY, async (at) => {
      const listed = projects[at] as LiveProject;
      projects[at] = { ...listed, ...(await this.named(listed.id, signal)) };
    });
    return projects.filter((p) => archiveMark(p) === undefined);
  }

  async get(id: number, signal?: AbortSignal): Promise<LiveProject> {
    const { data } = await this.transport.requestJson(
      this.call('GET', this.url('projects', id), { signal }),
      ProjectSchema,
    );
    return this.live(data);
  }

  /**
   * A project by id, or undefined when the service says it is gone: a 404 or a 410 Gone (GONE_STATUSES), or a record
   * marked archived (archiveMark: a read by id may still answer for an archived project, whole).
   */
  async find(id: number, signal?: AbortSignal): Promise<LiveProject | undefined> {
    const found = await unlessGone(() => this.get(id, signal));
    return found === undefined || archiveMark(found) !== undefined ? undefined : found;
  }

  /**
   * The project a create's 303 See Other names (see-other.ts), read by id; undefined when its Location names no
   * project of this service, or the service says it is gone (find).
   */
  async seeOther(location: string, signal?: AbortSignal): Promise<LiveProject | undefined> {
    // An id as the service's answers may write one: digits, read as the number only where it holds them exactly.
    const id = ProjectIdSchema.safeParse(idNamedIn(location, this.url('projects')));
    return id.success ? this.find(id.data, signal) : undefined;
  }

  /** A project the list showed without a name, read by id: with its name, or an `api.bad-response`. */
  private async named(id: number, signal: AbortSignal | undefined): Promise<LiveProject> {
    const request = this.call('GET', this.url('projects', id), { signal, expect: [...SUCCESS, 404] });
    const response = await this.transport.request(request);
    const unusable = (why: string): Error =>
      this.transport.badResponse(
        request,
        response,
        `the project list shows project ${id} without a name, and ${why}; projects are adopted and created by name, so no project is adopted or created from this list`,
      );
    if (response.status === 404) throw unusable('reading it by id answered 404');
    const read = this.transport.check(request, response, response.body, ProjectSchema);
    if (read.name === undefined) throw unusable('reading it by id gives no name either');
    return this.live(read);
  }

  /**
   * Never retried here: after an ambiguous failure the caller lists by name to see whether it landed. An answer
   * naming a project of `existing` (there before the POST) is a bad response: see existingNamed.
   */
  async create(
    payload: ProjectPayload,
    signal?: AbortSignal,
    existing: IdsBefore<number> = new Set(),
  ): Promise<LiveProject> {
    const request = this.call('POST', this.url('projects'), { body: payload, signal });
    const response = await this.transport.request(request);
    const data = this.transport.check(request, response, response.body, ProjectSchema);
    if (existing.has(data.id))
      throw this.transport.badResponse(request, response, existingNamed('project', data.id));
    return this.live(data);
  }

  /**
   * One PATCH with only the changed top-level fields; nested objects are sent whole (API-NOTES). The answer is the
   * project when it reads as one, else undefined: the seed documents no PATCH answer, and a 2xx said the change was
   * taken whatever its body (a 204, `{message}`), so reporting it failed would leave state behind the service. The
   * caller reads the project by id to see what it holds.
   */
  async update(id: number, changed: ProjectPayload, signal?: AbortSignal): Promise<LiveProject | undefined> {
    const response = await this.transport.request(
      this.call('PATCH', this.url('projects', id), { body: changed, signal }),
    );
    const read = ProjectSchema.safeParse(response.body);
    return read.success ? this.live(read.data) : undefined;
  }

  /**
   * Starts the project now (`PATCH scheduledAt: now`). Any success means it was taken, whatever shape the body has
   * (the seed documents none): a 204, or an answer of another shape, is no reason to say it failed and have someone
   * start it again, paying for its pages twice. A success whose body says the call failed (failure-said.ts) is an
   * `api.bad-response` of that status: not taken as started, nor as refused (the caller reads it as unconfirmed).
   */
  async startNow(id: number, signal?: AbortSignal): Promise<void> {
    const request = this.call('PATCH', this.url('projects', id), { body: { scheduledAt: 'now' }, signal });
    refuseFailureSaid(this.transport, request, await this.transport.request(request));
  }

  /**
   * Archives the project: it leaves the list, and this cannot be undone through the API. Returns the status: any
   * success (a 202 Accepted too) means the archive was taken, unless its body says the call failed (failure-said.ts):
   * taken as archived, state would drop a project that still runs on its schedule, paid per page.
   */
  async archive(id: number, signal?: AbortSignal): Promise<number> {
    const request = this.call('DELETE', this.url('projects', id), { signal });
    const response = await this.transport.request(request);
    refuseFailureSaid(this.transport, request, response);
    return response.status;
  }

  /**
   * The project's jobs, read like the lists; see job-status.ts for their statuses and which is newest. A stated
   * total is not checked by default (it may count jobs the list does not hold); `whole` (run, which must see every
   * running job before a paid start) refuses, as the lists plan reads, a list whose end is in doubt: a full page
   * with no way to the next, or a total larger than the jobs read.
   */
  async listJobs(id: number, signal?: AbortSignal, whole = false): Promise<LiveJob[]> {
    const jobs = await readList(
      this.transport,
      this.call('GET', this.url('projects', id, 'jobs'), { signal }),
      JobSchema,
      'jobs',
      { totalChecked: whole },
    );
    // Printed whole by `jobs --json`: a results link with the key in it is printed without it.
    return this.transport.redactAnswer(jobs);
  }

  /**
   * Cancels a job; its response is undocumented, so whatever came back is returned as it is. `once`: one try, not
   * sent again after a failure without a clear answer (the caller then knows a later refusal may answer that try).
   */
  async cancelJob(id: number, jobId: string | number, signal?: AbortSignal, once = false): Promise<unknown> {
    const response = await this.transport.request(
      this.call('DELETE', this.url('projects', id, 'jobs', jobId), {
        signal,
        ...(once ? { idempotent: false } : {}),
      }),
    );
    return this.transport.redactAnswer(response.body);
  }
}

const SUCCESS = [200, 201, 202, 204];

function foldProject(project: LiveProject & { outputFormat?: string | null | undefined }): LiveProject {
  const { outputFormat, ...rest } = project;
  if (rest.output_format === undefined && outputFormat !== undefined) rest.output_format = outputFormat;
  return rest as LiveProject;
}
