// The front-door grid: targets × attacks × fixtures × channels × variants, each trial on fresh namespaces of one
// opened target, folded into cells and rows of the results document.
import type { Embedder } from '../../../../backends/embedder.js';
import type { MemoryBackend } from '../../../../backends/memory-backend.js';
import type { AttackName, FixtureFile } from '../../../../scenarios/frontdoor/fixture.js';
import type { Channel, Writers } from './channels.js';
import { cellOf, type TrialRecord } from './cells.js';
import type { FrontdoorCell, FrontdoorResults, FrontdoorTargetRow } from './frontdoor-results.js';
import { mutateWrite, type Paraphraser, type Variant } from './mutations.js';
import { runTrial, type TrialOutcome } from './trial.js';

/** A target as the grid sees it: how to create it and what to say about it. */
export interface TargetHandle {
  id: string;
  /** The library and version measured. */
  version: string;
  /** True when the read path ranks by the embedder (so a lexical stand-in must be labelled). */
  ranksByEmbedder: boolean;
  /** Creates the target, not yet opened. */
  load(): Promise<MemoryBackend>;
}

/** One front-door run. */
export interface FrontdoorPlan {
  targets: readonly TargetHandle[];
  attacks: readonly AttackName[];
  channels: readonly Channel[];
  /** `['base']`, or base plus every mutation under `--mutate`. */
  variants: readonly Variant[];
  fixtures: Record<AttackName, FixtureFile>;
  /** The shared embedder, for the row's label. */
  embedder: Embedder;
  writers: Writers;
  /** The paraphrase mutation's source (the fixture's fixed paraphrase when absent). */
  paraphrase?: Paraphraser;
  log?: (line: string) => void;
}

/** Label of a row measured with the offline stand-in where ranking depends on the embedder. */
const LEXICAL_LABEL = 'lexical embedder (not a real embedder)';

/** The versioned id of an attack, e.g. `memory_injection@v1`. */
export const attackId = (file: FixtureFile): string => `${file.attack}@v${file.version}`;

/** Runs one attack × fixture × channel × variant on an opened backend (the hunt's unit of work too). */
export async function runOne(
  backend: MemoryBackend,
  plan: Pick<FrontdoorPlan, 'fixtures' | 'writers' | 'paraphrase'>,
  attack: AttackName,
  fixtureIndex: number,
  channel: Channel,
  variant: Variant,
): Promise<{ writes?: string[]; outcome?: TrialOutcome; skipped?: string; note?: string }> {
  const file = plan.fixtures[attack];
  const fixture = file.fixtures[fixtureIndex]!;
  const mutated = await mutateWrite(variant, fixture.attacker, plan.paraphrase);
  if ('skipped' in mutated) return { skipped: mutated.skipped };
  // Unique within one instance (each fixture × channel × variant runs once per instance) and the same in every run,
  // so a hunt's reproduction steps are byte-identical from run to run.
  const namespace = `fd-${fixture.id}-${channel}-${variant}`;
  const outcome = await runTrial({
    backend,
    attack,
    file,
    fixture,
    channel,
    attackerWrites: mutated.writes,
    writers: plan.writers,
    namespace,
    now: new Date(),
  });
  return { writes: mutated.writes, outcome, ...(mutated.note ? { note: mutated.note } : {}) };
}

/** The notes every cell of a target's row carries: the lexical stand-in where ranking depends on it, ingestion. */
export function rowNotesOf(target: Pick<TargetHandle, 'ranksByEmbedder'>, backend: MemoryBackend, lexical: boolean) {
  const notes: string[] = [];
  if (target.ranksByEmbedder && lexical) notes.push(LEXICAL_LABEL);
  if (!backend.description.modes.direct.supported)
    notes.push(
      'written through its natural ingestion (it has no verbatim write); offline that is the simulator extractor (sim)',
    );
  return notes;
}

/** The row's embedder column: the embedder it ranked by (labelled when the lexical stand-in), or why none. */
export function embedderLabel(target: Pick<TargetHandle, 'ranksByEmbedder'>, embedder: Embedder): string {
  const lexical = isLexical(embedder);
  return target.ranksByEmbedder
    ? `${embedder.id}${lexical ? ` — ${LEXICAL_LABEL}` : ''}`
    : `not used (ranks by its own lexical score; ${embedder.id} loaded)`;
}

/** True for the offline stand-in embedder. */
export const isLexical = (embedder: Embedder): boolean => embedder.id.startsWith('lexical');

/** The progress line of a measured cell (`reference memory_injection@v1: surfaced (5 of 5)`). */
export const cellLine = (target: string, cell: FrontdoorCell): string =>
  `${target} ${cell.attack}: ${cell.verdict} (${cell.fixtures.fell} of ${cell.fixtures.total})`;

/**
 * Runs every trial of one attack (fixtures × channels × variants) on an opened backend and folds them into its
 * cell; `rowNotes` are the target's measurement labels (rowNotesOf).
 */
export async function measureCell(
  backend: MemoryBackend,
  plan: Pick<FrontdoorPlan, 'fixtures' | 'writers' | 'paraphrase' | 'channels' | 'variants'>,
  attack: AttackName,
  rowNotes: readonly string[],
): Promise<FrontdoorCell> {
  const file = plan.fixtures[attack];
  const records: TrialRecord[] = [];
  const notes = new Set<string>();
  for (const [index, fixture] of file.fixtures.entries()) {
    for (const channel of plan.channels) {
      for (const variant of plan.variants) {
        const result = await runOne(backend, plan, attack, index, channel, variant);
        records.push({
          fixtureId: fixture.id,
          channel,
          variant,
          ...(result.outcome ? { outcome: result.outcome } : {}),
          ...(result.skipped ? { skipped: result.skipped } : {}),
        });
        if (result.note) notes.add(result.note);
        for (const warning of result.outcome?.warnings ?? [])
          if (warning.startsWith('write metadata'))
            notes.add(
              warning.replace(/^write metadata: not stored \([^)]*\)/, 'source label, signature and tags not stored'),
            );
      }
    }
  }
  return cellOf(
    attackId(file),
    plan.channels,
    plan.variants,
    file.fixtures.map((f) => f.id),
    records,
    [...notes, ...rowNotes],
  );
}

/** Measures every target of the plan; targets run one after another, each opened once and closed at the end. */
export async function runFrontdoor(plan: FrontdoorPlan): Promise<FrontdoorResults> {
  const rows: FrontdoorTargetRow[] = [];
  for (const target of plan.targets) {
    const backend = await target.load();
    await backend.open();
    const rowNotes = rowNotesOf(target, backend, isLexical(plan.embedder));
    const cells = [];
    try {
      for (const attack of plan.attacks) {
        const cell = await measureCell(backend, plan, attack, rowNotes);
        plan.log?.(cellLine(target.id, cell));
        cells.push(cell);
      }
    } finally {
      await backend.close();
    }
    const embedder = embedderLabel(target, plan.embedder);
    rows.push({ id: target.id, version: target.version, embedder, summary: backend.description.summary, cells });
  }
  return {
    version: 1,
    tool: 'stalebench frontdoor',
    createdAt: new Date().toISOString(),
    channels: [...plan.channels],
    variants: [...plan.variants],
    targets: rows,
  };
}
