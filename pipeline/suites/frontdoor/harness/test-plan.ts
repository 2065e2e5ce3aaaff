// Test support: a front-door plan on the offline lexical embedder, and backend wrappers that break one behaviour.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLexicalEmbedder } from '../../../../backends/lexical-embedder.js';
import type { MemoryBackend } from '../../../../backends/memory-backend.js';
import { ATTACK_NAMES, loadFixtureSet, type AttackName } from '../../../../scenarios/frontdoor/fixture.js';
import { CHANNELS, createWriters } from './channels.js';
import { MUTATIONS, type Variant } from './mutations.js';
import type { FrontdoorPlan, TargetHandle } from './run-frontdoor.js';
import { targetHandles } from './target-handles.js';

/** A plan over registered targets (or given handles), every attack and channel, base only or with every mutation. */
export async function testPlan(
  targets: readonly (string | TargetHandle)[],
  options: { mutate?: boolean; attacks?: AttackName[] } = {},
): Promise<FrontdoorPlan> {
  const embedder = createLexicalEmbedder();
  const writers = createWriters();
  const workDir = mkdtempSync(join(tmpdir(), 'frontdoor-test-'));
  const handles: TargetHandle[] = [];
  for (const target of targets)
    handles.push(
      typeof target === 'string' ? (await targetHandles([target], { embedder, writers, workDir }))[0]! : target,
    );
  const variants: Variant[] = options.mutate ? ['base', ...MUTATIONS] : ['base'];
  return {
    targets: handles,
    attacks: options.attacks ?? [...ATTACK_NAMES],
    channels: [...CHANNELS],
    variants,
    fixtures: loadFixtureSet(),
    embedder,
    writers,
  };
}

/** `backend` with some of its methods replaced (the rest delegate). */
export function wrapBackend(
  backend: MemoryBackend,
  overrides: Partial<Pick<MemoryBackend, 'insert' | 'search'>>,
): MemoryBackend {
  return {
    id: backend.id,
    description: backend.description,
    open: () => backend.open(),
    insert: overrides.insert ?? ((request) => backend.insert(request)),
    search: overrides.search ?? ((request) => backend.search(request)),
    reset: (namespace) => backend.reset(namespace),
    close: () => backend.close(),
  };
}
