/** What a command ended with; mapped to a process exit code in one place. */
export type RunStatus = 'ok' | 'no-changes' | 'changes' | 'error' | 'input-needed' | 'drift' | 'interrupted';

/**
 * Exit codes of DESIGN section 4: 0 success, 1 error, 2 changes (plan --detailed-exitcode), 3 input needed,
 * 4 drift found (`drift`), 130 interrupted.
 */
export function exitCodeFor(status: RunStatus): number {
  switch (status) {
    case 'ok':
    case 'no-changes':
      return 0;
    case 'error':
      return 1;
    case 'changes':
      return 2;
    case 'input-needed':
      return 3;
    case 'drift':
      return 4;
    case 'interrupted':
      return 130;
    default: {
      const unreachable: never = status;
      throw new Error(`unhandled run status ${String(unreachable)}`);
    }
  }
}
