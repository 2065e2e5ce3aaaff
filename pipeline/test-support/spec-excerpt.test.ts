// The §14 excerpt in data/fixtures/spec/ is a verbatim copy: where the shared spec is on this machine, they agree.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SECTION_14_EXCERPT, section14Json, section14Text } from './spec-excerpt.js';

const SHARED_SPEC = '/work/shared/spec/stale-retrieval.md';

describe('data/fixtures/spec/stale-retrieval-section-14.md', () => {
  it('names its source and holds the four subsections the byte-exact tests read', () => {
    const text = readFileSync(SECTION_14_EXCERPT, 'utf8');
    expect(text).toMatch(/^<!-- Excerpt, copied verbatim, of the project spec stale-retrieval\.md/);
    expect(text).toContain('VulcanLab/Memory-Rebirth-Attack@a8e0964735e7');
    expect(Object.keys(section14Json('### 14.1') as object)).toEqual(['SYS', 'FIRST_USER', 'TOOL_TURN']);
    expect(section14Json('### 14.4')).toHaveLength(4);
    expect(section14Text('### 14.3')).toContain('gnome-calculator');
  });

  it.skipIf(!existsSync(SHARED_SPEC))(
    `equals §14 to §14.4 of ${SHARED_SPEC} (skipped where the shared spec is absent)`,
    () => {
      const spec = readFileSync(SHARED_SPEC, 'utf8');
      const copy = readFileSync(SECTION_14_EXCERPT, 'utf8');
      const body = copy.slice(copy.indexOf('-->\n\n') + 5);
      expect(body).toBe(spec.slice(spec.indexOf('## 14. Tool actions'), spec.indexOf('### 14.5')));
    },
  );
});
