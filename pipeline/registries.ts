// Every registry, by kind: the one list that --help, the manifest's `components` and the registry tests walk.
// Adding a kind is one line here; adding a component is one line in its kind's registry.
import { GRAPH_ENGINES, VECTOR_ENGINES } from '../backends/engines.js';
import { SYSTEMS } from '../backends/index.js';
import { EMBEDDERS, EXTRACTION_MODELS } from '../backends/model-roles.js';
import { DECISION_MODELS } from './decision-models.js';
import { DEFENCE_REGISTRY } from './defences/registry.js';
import { EXPERIMENTS } from './experiments.js';

/**
 * The registries, keyed by the kind their records carry. Defences (issue #13 item 1: the arms and the PoEM gate as
 * registered parts, DEFENCES seen as a registry). Slots for issue #13's other kinds: scenarios and tables (item 3:
 * `scenario: SCENARIOS`, `table: TABLES`) register here with one line each.
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
