import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentsReading, otherEnvironments } from '../../../src/manifest/environment-reach.js';
import { tempProjects } from '../../helpers/temp-projects.js';

const project = tempProjects('scrapeform-reach-');

describe('environmentsReading', () => {
  it('names the other environments whose walk reads a file or a folder, as discovery would', async () => {
    const dir = await project({
      'scrapeform.yaml': 'kind: Config\n',
      'm/a.yaml': '',
      'm/prod-b.yaml': '',
      'm/.scrapeformignore': 'drafts/\n',
      'only/c.yaml': '',
      'nested/scrapeform.yaml': 'kind: Config\n',
    });
    const config = {
      kind: 'Config' as const,
      environments: {
        staging: { paths: ['m', 'only'] },
        prod: { paths: ['m'], exclude: ['m/prod-*.yaml'] },
        qa: { paths: ['only/c.yaml', 'nested'] },
        all: {},
      },
    };
    const reaches = otherEnvironments(config, dir, 'staging');
    expect(reaches.map((r) => r.name)).toEqual(['prod', 'qa', 'all']);
    const projectFile = path.join(dir, 'scrapeform.yaml');
    const reading = (target: string, isDirectory = false): string[] =>
      environmentsReading(path.join(dir, target), reaches, { projectFile, isDirectory });
    expect(reading('m/a.yaml')).toEqual(['prod', 'all']);
    // prod excludes it; a file named among qa's paths is read whatever its folder.
    expect(reading('m/prod-b.yaml')).toEqual(['all']);
    expect(reading('only/c.yaml')).toEqual(['qa', 'all']);
    // A .scrapeformignore, a hidden folder, another project's folder: no walk reads them.
    expect(reading('m/drafts/d.yaml')).toEqual([]);
    expect(reading('m/.hidden/e.yaml')).toEqual([]);
    expect(reading('nested/f.yaml')).toEqual([]);
    // Folders import would write into, made or not yet.
    expect(reading('m', true)).toEqual(['prod', 'all']);
    expect(reading('m/new', true)).toEqual(['prod', 'all']);
    expect(reading('only', true)).toEqual(['all']);
    expect(otherEnvironments(undefined, dir, undefined)).toEqual([]);
  });
});
