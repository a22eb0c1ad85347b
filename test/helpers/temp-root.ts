import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * vitest's global setup: every temporary folder a test makes (mkdtemp under os.tmpdir(), in the test or in a CLI it
 * runs) goes into one folder of this run, removed when the run ends, so a run leaves nothing behind in /tmp (a
 * whole run made about 250 folders there). The folder is the workers' TMPDIR; they are started after this runs.
 */
export default function setup(): () => void {
  const root = mkdtempSync(path.join(tmpdir(), 'scrapeform-tests-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(root, { recursive: true, force: true });
  };
}
