// Every registry, by kind: the one list that --help, the manifest's `components` and the registry tests walk.
// Adding a kind is one line here; adding a component is one line in its kind's registry.
import { GRAPH_ENGINES, VECTOR_ENGINES } from '../../backends/engines.js';
import { SYSTEMS } from '../../backends/index.js';
import { EMBEDDERS, EXTRACTION_MODELS } from '../../backends/model-roles.js';
import { DECISION_MODELS } from '../models/decision-models.js';
import { DEFENCE_REGISTRY } from '../defences/registry.js';
import { EXPERIMENTS } from './experiments.js';

/**
 * The registries of components a run builds from arguments, keyed by the kind their records carry (the manifest's
 * `components`). Two kinds register elsewhere because they take no arguments and are not built per run: scenarios
 * are data, listed in order by `scenarios/policy/index.json` (one JSON file + one index line each; the run records
 * each scenario's hash in the manifest), and tables are builders in `analysis/tables/index.ts` (`TABLES`, one file +
 * one line each), which `report` walks.
 */
export const REGISTRIES = {
  experiment: EXPERIMENTS,
  system: SYSTEMS,
  'graph-engine': GRAPH_ENGINES,
  'vector-engine': VECTOR_ENGINES,
  embedder: EMBEDDERS,
  'extraction-model': EXTRACTION_MODELS,
  'decision-model': DECISION_MODELS,
  defence: DEFENCE_REGISTRY,
} as const;
