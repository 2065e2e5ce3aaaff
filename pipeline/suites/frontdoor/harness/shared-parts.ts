// What one front-door invocation shares across its trials: fixtures, the probed embedder, the writers' keys, the
// variants and the paraphraser (the grid suite's setup and the hunt build them the same way).
import type { Embedder } from '../../../../backends/embedder.js';
import { createEmbedder } from '../../../../backends/index.js';
import type { AttackName, FixtureFile } from '../../../../scenarios/frontdoor/fixture.js';
import { cachingEmbedder } from './caching-embedder.js';
import { createWriters, type Writers } from './channels.js';
import type { FrontdoorOptions } from './frontdoor-args.js';
import { createModelParaphraser } from './mutation-model.js';
import { MUTATIONS, type Paraphraser, type Variant } from './mutations.js';

/** The flags the shared parts are built from. */
export type PartsSettings = Pick<FrontdoorOptions, 'embedder' | 'mutate' | 'mutationModel'>;

/** The shared parts of a run. */
export interface SharedParts {
  fixtures: Record<AttackName, FixtureFile>;
  embedder: Embedder;
  writers: Writers;
  variants: Variant[];
  paraphrase?: Paraphraser;
}

/** `['base']`, or base plus every mutation under `--mutate`. */
export const variantsOf = (mutate: boolean): Variant[] => (mutate ? ['base', ...MUTATIONS] : ['base']);

/** Builds the parts; the embedder is probed first, so a dead endpoint fails before any target opens. */
export async function sharedParts(
  settings: PartsSettings,
  fixtures: Record<AttackName, FixtureFile>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<SharedParts> {
  const embedder = await probedEmbedder(settings.embedder, env);
  const paraphrase = settings.mutationModel
    ? createModelParaphraser({
        model: settings.mutationModel,
        baseURL: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
        apiKey: env.OPENAI_API_KEY,
      })
    : undefined;
  return {
    fixtures,
    embedder,
    writers: createWriters(),
    variants: variantsOf(settings.mutate),
    ...(paraphrase ? { paraphrase } : {}),
  };
}

/** Builds the embedder and embeds one text, so a dead endpoint fails before any target opens and dimensions are known. */
async function probedEmbedder(
  spec: PartsSettings['embedder'],
  env: Readonly<Record<string, string | undefined>>,
): Promise<Embedder> {
  const inner = await createEmbedder(
    spec.id === 'openai'
      ? {
          id: 'openai',
          model: spec.model,
          ...(spec.baseURL ? { baseURL: spec.baseURL } : {}),
          apiKey: env.OPENAI_API_KEY ?? 'unused',
        }
      : { id: 'lexical' },
  );
  const embedder = cachingEmbedder(inner);
  await embedder.embed(['stalebench front door: embedder probe']);
  return embedder;
}
