import { describe, expect, it } from 'vitest';
import { promptFingerprint } from '../suites/grid/prompt-fingerprint.js';
import { resumeChanges, type RunFingerprint } from './resume-check.js';
import type { RunManifest } from '../run-log/run-log.js';

const fingerprint: RunFingerprint = {
  scenarios: [
    { id: 'a', sha256: '1'.repeat(64) },
    { id: 'b', sha256: '2'.repeat(64) },
  ],
  prompts: { decision: '3'.repeat(64) },
  revision: { commit: 'c'.repeat(40), dirty: false },
  packages: { openai: '6.30.1' },
};
const recorded = (fields: Partial<RunManifest>) => ({ ...fingerprint, ...fields }) as RunManifest;

describe('resumeChanges', () => {
  it('finds nothing for the same experiment', () => {
    expect(resumeChanges(recorded({}), fingerprint)).toEqual([]);
  });

  it('lists added, removed and edited scenarios, and a manifest without prompt hashes', () => {
    const changes = resumeChanges(
      recorded({
        scenarios: [
          { id: 'a', sha256: '9'.repeat(64) },
          { id: 'z', sha256: '2'.repeat(64) },
        ],
        prompts: undefined,
      }),
      fingerprint,
    );
    expect(changes).toEqual([
      'scenario a: content sha256 999999999999 → 111111111111',
      'scenario b: not in the run as first written (now content sha256 222222222222)',
      'scenario z: no longer present (was content sha256 222222222222)',
      'prompts: not recorded when the run began (its manifest predates prompt hashes)',
    ]);
  });

  it('treats a null revision (no git) like any other value', () => {
    expect(resumeChanges(recorded({ revision: { commit: null, dirty: null } }), fingerprint)).toEqual([
      'revision: commit none → cccccccccccc',
      'revision: uncommitted changes null → false',
    ]);
  });
});

describe('promptFingerprint', () => {
  it('hashes the parts each experiment sends, the same way every time', () => {
    expect(Object.keys(promptFingerprint('grid'))).toEqual(['decision']);
    expect(Object.keys(promptFingerprint('writeback'))).toEqual(['decision', 'journal']);
    expect(Object.keys(promptFingerprint('propagation'))).toEqual(['roles', 'journal']);
    expect(Object.keys(promptFingerprint('tools'))).toEqual(['tools']);
    expect(promptFingerprint('writeback').decision).toBe(promptFingerprint('grid').decision);
    expect(Object.values(promptFingerprint('grid'))[0]).toMatch(/^[0-9a-f]{64}$/);
  });
});
