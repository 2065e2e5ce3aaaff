// Registry targets as grid handles: each gets the shared embedder, a private work directory and the agent's public key.
import { join } from 'node:path';
import type { Embedder } from '../../../../backends/embedder.js';
import { frontdoorTarget, type FrontdoorTarget } from '../targets/targets.js';
import type { MemoryBackend } from '../../../../backends/memory-backend.js';
import { createSimExtractionModel } from '../../../../backends/sim-extraction-model.js';
import type { Writers } from './channels.js';
import type { TargetHandle } from './run-frontdoor.js';

/** Creates a fresh instance of `target` (not yet opened) storing in `workDir`, trusting the agent's key. */
export function loadFrontdoorTarget(
  target: FrontdoorTarget,
  options: { embedder: Embedder; writers: Writers },
  workDir: string,
): Promise<MemoryBackend> {
  return target.load({
    embedder: options.embedder,
    runId: `frontdoor-${target.id}`,
    workDir,
    extraction: createSimExtractionModel(),
    trustedKeys: [options.writers.agent.publicKeyPem],
    writerKeys: [options.writers.agent, options.writers.attacker],
  });
}

/** Resolves target ids (unknown ids throw, naming the available ones) into handles that create a fresh instance per load. */
export async function targetHandles(
  ids: readonly string[],
  options: { embedder: Embedder; writers: Writers; workDir: string },
): Promise<TargetHandle[]> {
  const handles: TargetHandle[] = [];
  let instance = 0;
  for (const id of ids) {
    const target = await frontdoorTarget(id);
    handles.push({
      id,
      version: target.version(),
      ranksByEmbedder: target.ranksByEmbedder,
      load: () => loadFrontdoorTarget(target, options, join(options.workDir, `${id}-${++instance}`)),
    });
  }
  return handles;
}
