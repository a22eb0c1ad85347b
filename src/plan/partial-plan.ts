import type { Narrowing } from '../model/desired.js';
import { PARTIAL_PLAN_WARNING } from './model.js';
import type { Plan } from './model.js';

const PATHS_START = 'only the objects declared under ';
const PATHS_END = ' (paths given)';
const TARGETS_START = 'only ';
const TARGETS_END = ' (--target)';
const EXCLUDES_START = 'without ';
const EXCLUDES_END = ' (--exclude)';
const TAIL =
  '; changes to other objects are neither shown nor applied, and a plan without these flags may have more';

/**
 * The warning of a plan made with `--target`, `--exclude` or paths: the first of its warnings, in every output and in
 * the saved file. Built here and only here, because `savedSelection` reads a saved plan's choice back from it.
 */
export function partialPlanWarning(
  narrowed: Narrowing | undefined,
  targets: readonly string[],
  excludes: readonly string[],
): string | undefined {
  if (targets.length === 0 && excludes.length === 0 && narrowed === undefined) return undefined;
  const chosen = [
    ...(narrowed !== undefined ? [`${PATHS_START}${narrowed.paths.join(', ')}${PATHS_END}`] : []),
    ...(targets.length > 0 ? [`${TARGETS_START}${targets.join(', ')}${TARGETS_END}`] : []),
    ...(excludes.length > 0 ? [`${EXCLUDES_START}${excludes.join(', ')}${EXCLUDES_END}`] : []),
  ];
  return `${PARTIAL_PLAN_WARNING} ${chosen.join(', ')}${TAIL}`;
}

/** What a saved plan chose to plan, as its partial-plan warning says. */
export interface SavedSelection {
  /** Whether `--target` and `--exclude` chose the address (true for every address of a plan made without them). */
  chose: (address: string) => boolean;
  /** The paths part of the warning when the plan was narrowed by paths: which objects they select is not saved. */
  paths?: string;
}

/**
 * Reads back the choice a saved plan was made with (partialPlanWarning): the file does not record the flags
 * otherwise, and a fresh plan at apply is made without them. Addresses are told apart by the `, ` that joins them,
 * so a name that itself holds `, ` and another address could be read as two; that only holds a change back.
 */
export function savedSelection(saved: Plan): SavedSelection {
  const warning = saved.warnings.find((w) => w.startsWith(`${PARTIAL_PLAN_WARNING} `) && w.endsWith(TAIL));
  if (warning === undefined) return { chose: () => true };
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
    ...(paths !== undefined ? { paths } : {}),
  };
}
