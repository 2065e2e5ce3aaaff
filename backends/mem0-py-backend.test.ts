import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MissingPrerequisiteError } from '#core/errors.js';
import { mem0PyProblem } from './mem0-py-backend.js';

const root = mkdtempSync(join(tmpdir(), 'mem0-py-backend-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('mem0-py prerequisite', () => {
  it('without the mem0-py store environment: names the pinned package, its venv and the install command', async () => {
    const problem = await mem0PyProblem(root);
    expect(problem).toBeInstanceOf(MissingPrerequisiteError);
    expect(problem?.message).toContain(
      'mem0ai==2.0.20 (backends/python/envs/mem0-py.txt, in .cache/python-stores/mem0-py/venv)',
    );
    expect(problem?.message).toContain('run pnpm stores install mem0-py');
  });
});
