import type { Narrowing } from '../model/desired.js';
import { PARTIAL_PLAN_WARNING } from './model.js';
import type { Plan, PlanSelection } from './model.js';

const PATHS_START = 'only the objects declared under ';
const PATHS_END = ' (paths given)';
const TARGETS_START = 'only ';
const TARGETS_END = ' (--target)';
const EXCLUDES_START = 'without ';
const EXCLUDES_END = ' (--exclude)';
const TAIL =
  '; changes to other objects are neither shown nor applied, and a plan without these flags may have more';

/**
 * What a plan made with `--target`, `--exclude` or paths given with `--env` is narrowed to; undefined for a whole plan.
 */
export function planSelection(
  narrowed: Narrowing | undefined,
  targets: readonly string[],
  excludes: readonly string[],
): PlanSelection | undefined {
  if (targets.length === 0 && excludes.length === 0 && narrowed === undefined) return undefined;
  return { targets: [...targets], excludes: [...excludes], paths: [...(narrowed?.paths ?? [])] };
}

/**
 * The warning of a partial plan: the first of its warnings, in every output and in the saved file. A saved plan
 * records its selection as data too (`selection`), which apply reads; earlier versions of scrapeform, which drop that
 * key, read the choice back from this text (as selectionInWarning does for the files they saved). Reworded, it reads
 * there as a whole plan's: apply then refuses a plan that left something out, and never sends more than it lists.
 */
export function partialPlanWarning(selection: PlanSelection | undefined): string | undefined {
  if (selection === undefined) return undefined;
  const { targets, excludes, paths } = selection;
  const chosen = [
    ...(paths.length > 0 ? [`${PATHS_START}${paths.join(', ')}${PATHS_END}`] : []),
    ...(targets.length > 0 ? [`${TARGETS_START}${targets.join(', ')}${TARGETS_END}`] : []),
    ...(excludes.length > 0 ? [`${EXCLUDES_START}${excludes.join(', ')}${EXCLUDES_END}`] : []),
  ];
  return `${PARTIAL_PLAN_WARNING} ${chosen.join(', ')}${TAIL}`;
}

/** What a saved plan chose to plan. */
export interface SavedSelection {
  /** Whether `--target` and `--exclude` chose the address (true for every address of a plan made without them). */
  chose: (address: string) => boolean;
  /**
   * Whether a fresh plan is narrowed by the same paths as the saved one (true when the saved one was not narrowed by
   * paths): which objects the paths selected is not saved.
   */
  samePaths: (fresh: Plan) => boolean;
}

/**
 * Reads back the choice a saved plan was made with: its `selection`, or for a plan saved before that was recorded,
 * its partial-plan warning (selectionInWarning). A fresh plan at apply is made without `--target` and `--exclude`.
 */
export function savedSelection(saved: Plan): SavedSelection {
  if (saved.selection === undefined) return selectionInWarning(saved);
  const { targets, excludes, paths } = saved.selection;
  return {
    chose: (address) => (targets.length === 0 || targets.includes(address)) && !excludes.includes(address),
    samePaths: (fresh) => {
      if (paths.length === 0) return true;
      const now = fresh.selection?.paths ?? [];
      return now.length === paths.length && now.every((p, i) => p === paths[i]);
    },
  };
}

/**
 * The choice of a plan saved before `selection` was recorded, read from its warning (partialPlanWarning). Addresses
 * are told apart by the `, ` that joins them, so a name that itself holds `, ` and another address could be read as
 * two; that only holds a change back.
 */
function selectionInWarning(saved: Plan): SavedSelection {
  const warning = saved.warnings.find((w) => w.startsWith(`${PARTIAL_PLAN_WARNING} `) && w.endsWith(TAIL));
  if (warning === undefined) return { chose: () => true, samePaths: () => true };
  let rest = warning.slice(PARTIAL_PLAN_WARNING.length + 1, -TAIL.length);
  let paths: string | undefined;
  if (rest.startsWith(PATHS_START) && rest.includes(PATHS_END)) {
    const end = rest.indexOf(PATHS_END) + PATHS_END.length;
    paths = rest.slice(0, end);
    rest = rest.slice(end).replace(/^, /, '');
  }
  let targets: string | undefined;
  if (rest.startsWith(TARGETS_START) && rest.includes(TARGETS_END)) {
    const end = rest.indexOf(TARGETS_END);
    targets = `, ${rest.slice(TARGETS_START.length, end)}, `;
    rest = rest.slice(end + TARGETS_END.length).replace(/^, /, '');
  }
  const excludes =
    rest.startsWith(EXCLUDES_START) && rest.endsWith(EXCLUDES_END)
      ? `, ${rest.slice(EXCLUDES_START.length, -EXCLUDES_END.length)}, `
      : undefined;
  return {
    chose: (address) =>
      (targets === undefined || targets.includes(`, ${address}, `)) &&
      (excludes === undefined || !excludes.includes(`, ${address}, `)),
    // The paths part as this scrapeform words it in a fresh plan's warning.
    samePaths: (fresh) =>
      paths === undefined ||
      fresh.warnings.some((w) => w.startsWith(PARTIAL_PLAN_WARNING) && w.includes(paths)),
  };
}
