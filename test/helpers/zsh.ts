import { execFileSync } from 'node:child_process';

/** Whether zsh with its zpty module (a terminal for the shell a test types into) is on this machine. */
function hasZsh(): boolean {
  try {
    execFileSync('zsh', ['-fc', 'zmodload zsh/zpty'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the tests that type into a real shell run. CI installs zsh (.ci/run) and sets SCRAPEFORM_REQUIRE_ZSH=1:
 * there, a missing zsh fails these tests, not skips them.
 */
export const RUN_SHELL_TESTS = process.env.SCRAPEFORM_REQUIRE_ZSH === '1' || hasZsh();
