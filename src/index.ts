/** The library API that the CLI uses; everything a program needs to drive scrapeform without the CLI. */
export { loadManifests } from './manifest/load-manifests.js';
export type { LoadedManifests, LoadManifestsOptions } from './manifest/load-manifests.js';
export type { Diagnostic } from './manifest/diagnostic.js';
export { manifestJsonSchema } from './manifest/json-schema.js';
export type * from './model/desired.js';
export { ScrapeformError, ERROR_CODES } from './errors.js';
export type { ErrorCode } from './errors.js';
export { runCli } from './cli/main.js';
export { VERSION } from './version.js';
export { ApiError } from './api/api-error.js';
export type { ApiErrorCode } from './api/api-error.js';
export { resolveApiConfig } from './api/config.js';
export type { ApiConfig } from './api/config.js';
export { createApiClients } from './api/create-clients.js';
export type { ApiClients } from './api/create-clients.js';
export { ParsersClient } from './api/parsers-client.js';
export type { CreateParserInput, FieldOperations } from './model/wire.js';
export { ProjectsClient } from './api/projects-client.js';
export { Transport, createDispatcher, DEFAULT_RETRY_POLICY } from './api/transport.js';
export type { TransportEvent, RetryPolicy } from './api/transport.js';
export type * from './api/live.js';
export { buildPlan, detailsNeeded, projectPayload } from './plan/build-plan.js';
export type { PlanInput, PlanOptions } from './plan/build-plan.js';
export type * from './plan/model.js';
export { plannedRequests, toPlanJson } from './plan/plan-json.js';
export type { ChangeRecord, PlanJson, PlannedRequest, ResourceChangeJson } from './plan/plan-json.js';
export { parsePlanFile } from './plan/plan-file.js';
export { diffFields } from './plan/diff-fields.js';
export { readLive } from './workspace/read-live.js';
export { openWorkspace, openServices, openState, using } from './workspace/open-workspace.js';
export type {
  OpenState,
  Services,
  ServicesOptions,
  StateLocation,
  Workspace,
  WorkspaceOptions,
} from './workspace/open-workspace.js';
export { planWorkspace } from './workspace/plan-workspace.js';
export type { PlannedWorkspace } from './workspace/plan-workspace.js';
export { applyWorkspace } from './workspace/apply-workspace.js';
export type { ApplyWorkspaceOptions, ApplyWorkspaceOutcome } from './workspace/apply-workspace.js';
export { decideApproval, refusalError, checkRegenerations } from './plan/approval.js';
export type { ApprovalDecision, ApprovalFlags } from './plan/approval.js';
export { readStatus } from './workspace/read-status.js';
export type { StatusRow } from './workspace/read-status.js';
export { listProjectJobs, cancelProjectJob, runProject } from './workspace/project-jobs.js';
export type { RunProjectOptions } from './workspace/project-jobs.js';
export { importLive } from './workspace/import-live.js';
export type { ImportOptions } from './workspace/import-live.js';
export { importParser, importProject } from './workspace/live-to-manifest.js';
export type { ImportedObject } from './workspace/live-to-manifest.js';
export { managedParser, managedProject } from './workspace/managed-address.js';
export { applyPlan } from './apply/apply-plan.js';
export type { ApplyOptions, ApplyResult, ApplyEvent } from './apply/apply-plan.js';
export { FileStateBackend } from './state/file-backend.js';
export type { StateBackend } from './state/backend.js';
export type * from './state/model.js';
export { startEmulator } from './emulator/start-emulator-lazily.js';
export type { EmulatorOptions, RunningEmulator } from './emulator/server.js';
export { renderPlan } from './output/render-plan.js';
export { renderPlanMarkdown } from './output/render-plan-markdown.js';
export { renderPlanJson } from './output/render-plan-json.js';
export { renderOutput, formatsOf, RENDER_FORMATS } from './output/render-output.js';
export type { Renderable, RenderFormat } from './output/render-output.js';
export { createColors } from './output/colors.js';
export type { Colors } from './output/colors.js';
