/** The library API that the CLI uses; everything a program needs to drive scrapeform without the CLI. */
export { loadAllEnvironments, loadManifests } from './manifest/load-manifests.js';
export type {
  LoadedEnvironment,
  LoadedEnvironments,
  LoadedManifests,
  LoadManifestsOptions,
} from './manifest/load-manifests.js';
export { selectEnvironment } from './manifest/project-file.js';
export type { EnvironmentSettings, SelectedEnvironment } from './manifest/project-file.js';
export { renderManifests } from './manifest/render-manifests.js';
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
export type { ParserDeleteAnswer } from './api/parsers-client.js';
export type { CreateParserInput, FieldOperations } from './model/wire.js';
export { ProjectsClient } from './api/projects-client.js';
export { Transport } from './api/transport.js';
export { createDispatcher } from './api/dispatcher.js';
export { DEFAULT_RETRY_POLICY } from './api/retry-policy.js';
export type { TransportEvent } from './api/transport-contract.js';
export type { RetryPolicy } from './api/retry-policy.js';
export type * from './api/live.js';
export { buildPlan, detailsNeeded, projectPayload } from './plan/build-plan.js';
export type { PlanInput, PlanOptions } from './plan/build-plan.js';
export type * from './plan/model.js';
export { plannedRequests, toPlanJson } from './plan/plan-json.js';
export type { ChangeRecord, PlanJson, PlannedRequest, ResourceChangeJson } from './plan/plan-json.js';
export { parsePlanFile } from './plan/plan-file.js';
export { diffFields } from './plan/diff-fields.js';
export { readLive, servicesUsed } from './workspace/read-live.js';
export type { DeclaredObjects } from './workspace/read-live.js';
export {
  openWorkspace,
  openServices,
  openState,
  readEnvironmentSettings,
  using,
  withEnvironment,
} from './workspace/open-workspace.js';
export type {
  EnvironmentOptions,
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
export {
  decideApproval,
  refusalError,
  checkRegenerations,
  checkRecreates,
  checkForgets,
} from './plan/approval.js';
export type { ApprovalDecision, ApprovalFlags } from './plan/approval.js';
export { readStatus } from './workspace/read-status.js';
export { runDoctor } from './workspace/run-doctor.js';
export type { DoctorOptions, DoctorCheck, DoctorReading, DoctorReport } from './workspace/run-doctor.js';
export type { StatusRow } from './workspace/read-status.js';
export { listProjectJobs, cancelProjectJob, runProject } from './workspace/project-jobs.js';
export type { RunProjectOptions } from './workspace/project-jobs.js';
export { importLive } from './workspace/import-live.js';
export type { ImportOptions } from './workspace/import-live.js';
export { importParser, importProject } from './workspace/live-to-manifest.js';
export type { ImportedObject } from './workspace/live-to-manifest.js';
export { managedParser, managedProject } from './workspace/managed-address.js';
export { detectDrift, outOfBandRenames } from './plan/drift.js';
export type { DriftChange, DriftCost, DriftKind, DriftReport, ObjectDrift } from './plan/drift.js';
export { detectWorkspaceDrift } from './workspace/detect-drift.js';
export type { DetectDriftOptions, DetectedDrift } from './workspace/detect-drift.js';
export { acceptDrift } from './workspace/accept-drift.js';
export type { AcceptDriftOptions, AcceptedDrift } from './workspace/accept-drift.js';
export { runWatch, newWatchStatus } from './workspace/watch-loop.js';
export type {
  WatchDriftNotification,
  WatchEvent,
  WatchFailingNotification,
  WatchNotification,
  WatchOptions,
  WatchStatus,
} from './workspace/watch-loop.js';
export type { LeftChange } from './workspace/heal-selection.js';
export { startWatchEndpoint } from './workspace/watch-endpoint.js';
export type { WatchEndpoint } from './workspace/watch-endpoint.js';
export { waitingForLock } from './state/lock-wait.js';
export type { LockWait, LockWaitEvent } from './state/lock-wait.js';
export { applyPlan } from './apply/apply-plan.js';
export type { ApplyOptions, ApplyResult, ApplyEvent } from './apply/apply-model.js';
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
