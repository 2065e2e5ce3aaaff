// Which part of a run the offline simulator produced (the decisions, the natural-mode extraction, or both), and the
// banner sentence that says so: a real model's run with a simulated extractor is not "sim" as a whole.
import { EXPERIMENTS } from '../pipeline/index.js';

/** The manifest fields read here (a suite's manifest has none of them: nothing simulated). */
export interface ManifestLike {
  simulated?: boolean;
  models?: readonly { id?: string; label?: string; simulated?: boolean }[];
  extraction?: { id: string; simulated: boolean };
  spec?: { modes?: readonly string[]; arms?: readonly string[]; experiment?: string };
}

/** What was simulated: the decisions (a decision model is the simulator), the extraction (used and simulated). */
export interface SimulatedParts {
  decisions: boolean;
  extraction: boolean;
  /** The simulated extractor's id(s), for the sentence. */
  extractors: string[];
  /** The real decision models' labels (when only the extraction was simulated). */
  realModels: string[];
}

/** The run's extraction was used: natural mode, or an arm of its experiment that ingests (write-back `natural`). */
function extractionUsed(spec: NonNullable<ManifestLike['spec']>): boolean {
  if (spec.modes?.includes('natural')) return true;
  const experiment = spec.experiment ?? 'grid';
  const ingesting = EXPERIMENTS.has(experiment) ? EXPERIMENTS.get(experiment).ingestingArms : [];
  return (spec.arms ?? []).some((arm) => ingesting.includes(arm));
}

/**
 * The simulated parts of one or more runs (pooled: a part is simulated when it is in any run).
 *
 * @example simulatedParts([manifest]) // { decisions: false, extraction: true, extractors: ['sim-extractor-v2'], ... }
 */
export function simulatedParts(manifests: readonly ManifestLike[]): SimulatedParts {
  const parts: SimulatedParts = { decisions: false, extraction: false, extractors: [], realModels: [] };
  for (const m of manifests) {
    const models = m.models ?? [];
    if (models.some((model) => model.simulated)) parts.decisions = true;
    for (const model of models) if (!model.simulated) parts.realModels.push(model.label ?? model.id ?? '?');
    if (m.extraction?.simulated && m.spec && extractionUsed(m.spec)) {
      parts.extraction = true;
      parts.extractors.push(m.extraction.id);
    }
    // A manifest that says simulated without saying which part (older writers): count it as decisions.
    if (m.simulated === true && !models.some((model) => model.simulated) && !parts.extraction) parts.decisions = true;
  }
  parts.extractors = [...new Set(parts.extractors)];
  parts.realModels = [...new Set(parts.realModels)];
  return parts;
}

/** The banner sentence naming the simulated part(s), or null when nothing is simulated. */
export function simBannerText(parts: SimulatedParts): string | null {
  const extractor = parts.extractors.join(', ') || 'the simulated extractor';
  if (parts.decisions && parts.extraction)
    return `sim (simulated): decisions and extraction. The decisions come from the offline simulator (sim), not a model, and natural-mode ingestion used the simulated extractor (${extractor}).`;
  if (parts.decisions)
    return 'sim (simulated): decisions. The decisions come from the offline simulator (sim), not a model; extraction is not simulated (or not used).';
  if (parts.extraction)
    return `sim (simulated): extraction only. The decisions are ${parts.realModels.join(', ') || 'a real model'}'s; natural-mode ingestion used the simulated extractor (${extractor}), so natural-mode and ingesting cells are not a measurement of a real extractor. Direct-mode cells are not simulated.`;
  return null;
}
