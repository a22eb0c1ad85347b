import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openWorkspace, using } from '../../../src/workspace/open-workspace.js';

/**
 * Review: `watch` reads the manifests again at every run. A later commit's `${VAR}` holding a key given with
 * --api-key-env (or --api-key-file) failed a check, and the diagnostic quoted the key into the watch log, /healthz
 * and the chat notification: only the first load took the run's key out of diagnostics.
 */
it('the manifests read again quote the run key nowhere, though it came by --api-key-env', async () => {
  const key = '3f9a1c2b7d4e8f60a1b2c3d4e5f60718';
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-reload-key-'));
  const manifest = (device: string): string =>
    `kind: Parser\nname: p\nurls: [https://books.example/a.html]\nscraper_params:\n  device_type: ${device}\nfields:\n  title: { description: Title, selector: h1 }\n`;
  await writeFile(path.join(dir, 'p.yaml'), manifest('desktop'));
  await using(
    openWorkspace({
      paths: [dir],
      env: {
        SF_KEY: key,
        SCRAPEFORM_PARSER_URL: 'http://127.0.0.1:9',
        SCRAPEFORM_PIPELINE_URL: 'http://127.0.0.1:9',
      },
      apiKeyEnv: 'SF_KEY',
      statePath: path.join(dir, 'state.json'),
    }),
    async (ws) => {
      await writeFile(path.join(dir, 'p.yaml'), manifest('${SF_KEY}'));
      const reloaded = await ws.reloadManifests?.();
      expect(reloaded?.valid).toBe(false);
      const shown = JSON.stringify(reloaded?.diagnostics);
      expect(shown).toContain('scraper_params.device_type');
      expect(shown).toContain('***');
      expect(shown).not.toContain(key);
    },
  );
});
