import { describe, expect, it } from 'vitest';
import { manifestYaml, readBackProblem } from '../../../src/workspace/read-back.js';

const PROJECT = {
  apiVersion: 'scrapeform/v1',
  kind: 'Project',
  name: 'merged',
  projectInput: { type: 'list', list: ['https://shop.example/p/1'] },
  apiParams: { '<<': 'x' },
};
const PARSER = {
  apiVersion: 'scrapeform/v1',
  kind: 'Parser',
  name: 'kettles',
  urls: ['https://shop.example/p/1'],
  fields: { toString: { description: 'Odd' } },
};

describe('what import writes is read back as the next plan reads it', () => {
  it('a << key is written quoted and reads back as itself; written plain, it is a merge key', () => {
    const text = manifestYaml(PROJECT);
    expect(text).toContain('\n  "<<": x\n');
    expect(readBackProblem('p.yaml', text, 'Project', PROJECT)).toBeUndefined();
    expect(readBackProblem('p.yaml', text.replace('"<<"', '<<'), 'Project', PROJECT)).toBe(
      'apiParams.<<: the merge key << takes a map or a list of maps, got the string x',
    );
  });

  it('a document that loads as other values, or that the rules refuse, is a problem', () => {
    const merged = manifestYaml({ ...PROJECT, apiParams: { a: 1 } }).replace('  a: 1', '  <<: { a: 1 }');
    expect(readBackProblem('p.yaml', merged, 'Project', { ...PROJECT, apiParams: { '<<': { a: 1 } } })).toBe(
      'it reads back as other values than the live ones',
    );
    expect(readBackProblem('p.yaml', manifestYaml(PARSER), 'Parser', PARSER)).toBe(
      'fields.toString: field name "toString" is reserved',
    );
  });
});
