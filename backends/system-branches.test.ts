// The architecture as a test (the house rule "no code outside backends/ asks which backend it is talking to"): outside
// backends/, product code never compares a value with a memory system's id; what differs by system is read from the
// system's `description` (exposure rule, store filter, modes, status fields) or its registry line.
import { describe, expect, it } from 'vitest';
import { SYSTEMS } from './index.js';
import { branchesIn, idAlternatives, kindBranchPattern, productFiles } from '../pipeline/test-support/branch-scan.js';

const FOLDERS = ['pipeline', 'analysis', 'guard', 'scenarios', 'notebooks'];

/**
 * A system branch: a comparison (`===`, `!==`, `case`) with a system id literal, a prefix or suffix test on one
 * (`startsWith('mem0')`), or a membership test of a value in a list of system ids.
 */
const ids = idAlternatives(SYSTEMS.ids);
const BRANCH = kindBranchPattern({
  ids: SYSTEMS.ids,
  extra: [`\\.(startsWith|endsWith)\\('(${ids})`, `\\[\\s*'(${ids})'(\\s*,\\s*'[\\w-]+')*\\s*\\]\\.includes\\(`],
});

describe('no code outside backends/ branches on which memory system it talks to', () => {
  it('finds the branches it is meant to find (the check can fail)', () => {
    for (const line of [
      "if (system === 'zep-ce') return null;",
      "const hidden = 'mem0' === backend.id;",
      "  case 'cognee':",
      "if (record.system.startsWith('mem0')) {",
      "const graph = ['graphiti', 'zep-ce'].includes(spec.system);",
      "if (id !== 'inspeximus-hist') continue;",
    ])
      expect(BRANCH.test(line), line).toBe(true);
    for (const line of [
      "const TABLE6_SYSTEMS = ['graphiti', 'mem0-exp', 'cognee', 'langmem', 'mem0', 'zep-ce'];",
      "if (backend.description.exposure.rule === 'oracle') {",
      'const cell = summary.cells.find((c) => c.system === system);',
      "if (mode === 'natural') return;",
    ])
      expect(BRANCH.test(line), line).toBe(false);
  });

  it('has none in pipeline/, analysis/, guard/, scenarios/ or notebooks/', () => {
    const files = productFiles(FOLDERS);
    expect(files.length).toBeGreaterThan(300);
    expect(branchesIn(files, BRANCH)).toEqual([]);
  });
});
