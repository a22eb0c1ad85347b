import { projectCreateBody, projectPath, PROJECTS_PATH } from '../model/wire.js';
import type {
  ProjectAdopt,
  ProjectArchive,
  ProjectChange,
  ProjectCreate,
  ProjectForget,
  ProjectUpdate,
} from '../plan/model.js';
import { makeCall, noteCall } from './apply-context.js';
import type { Handler } from './apply-context.js';
import { createOnce } from './create-once.js';

/** One handler per project action; a missing one is a type error. */
export const PROJECT_HANDLERS = {
  create: async (change: ProjectCreate, result, ctx) => {
    const created = await createOnce(
      () => ctx.clients.projects.list(),
      () => ctx.clients.projects.create(projectCreateBody(change.definition, change.scheduledAt)),
      change.name,
      ctx.planned?.projectsByName,
    );
    noteCall(ctx, change, result, { method: 'POST', path: PROJECTS_PATH }, 201);
    result.id = created.id;
    await ctx.store.commit((state) => {
      state.resources[change.address] = {
        kind: 'Project',
        id: created.id,
        name: change.name,
        definition: change.definition,
      };
    });
  },
  update: async (change: ProjectUpdate, result, ctx) => {
    await makeCall(
      ctx,
      change,
      result,
      { method: 'PATCH', path: projectPath(change.id) },
      () => ctx.clients.projects.update(change.id, change.changed),
      200,
    );
    await ctx.store.commit((state) => {
      state.resources[change.address] = {
        kind: 'Project',
        id: change.id,
        name: change.name,
        definition: change.definition,
      };
    });
  },
  archive: async (change: ProjectArchive, result, ctx) => {
    await makeCall(
      ctx,
      change,
      result,
      { method: 'DELETE', path: projectPath(change.id) },
      () => ctx.clients.projects.archive(change.id),
      204,
      [404],
    );
    await ctx.store.commit((state) => delete state.resources[change.address]);
  },
  adopt: async (change: ProjectAdopt, _result, ctx) => {
    await ctx.store.commit((state) => {
      state.resources[change.address] = {
        kind: 'Project',
        id: change.id,
        name: change.name,
        definition: change.definition,
      };
    });
  },
  forget: async (change: ProjectForget, _result, ctx) => {
    await ctx.store.commit((state) => delete state.resources[change.address]);
  },
} satisfies { [A in ProjectChange['action']]: Handler<Extract<ProjectChange, { action: A }>> };
