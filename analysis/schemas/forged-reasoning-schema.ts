// The zod schema of a forged-reasoning run's `summary.json` (`pnpm eval --experiment forged-reasoning`, poem.md §6),
// from which data/schemas/ publishes its JSON Schema (issue #31 item 6). published-schemas.test.ts checks that its
// type is exactly `ForgedReasoningSummary`, so the interface and this schema cannot change apart.
import { z } from 'zod';
import { proportion, usage } from './summary-schema.js';

const count = z.number().int().nonnegative();
const measured = z.number().nonnegative().nullable();

const cell = z
  .object({
    model: z.string(),
    modelLabel: z.string(),
    simulated: z.boolean(),
    defence: z.string(),
    defenceLabel: z.string(),
    metric: z.enum(['asr', 'legitimate-skip', 'false-positive']),
    condition: z.string().meta({ description: 'An attack condition for asr, a benign style (or *) otherwise.' }),
    scenario: z.string().meta({ description: 'A scenario id, or * pooled over the run.' }),
    rate: proportion,
    parseFailures: count,
    errors: count,
  })
  .meta({ id: 'ForgedReasoningCell' });

const attackerRow = z
  .object({
    model: z.string(),
    modelLabel: z.string(),
    simulated: z.boolean(),
    attacker: z.string(),
    attackerLabel: z.string(),
    scenario: z.string(),
    byDefence: z.object({ none: proportion, 'sentinel-style': proportion, 'naive-poem': proportion, poem: proportion }),
    firstSuccess: z.array(z.number().int().positive().nullable()),
    stops: z.array(z.enum(['successes', 'max-queries', 'error'])),
    parseFailures: count,
    errors: count,
  })
  .meta({ id: 'AttackerRow' });

const overheadRow = z
  .object({
    model: z.string(),
    modelLabel: z.string(),
    simulated: z.boolean(),
    checks: count,
    checkMicros: measured,
    ledgerLines: measured,
    ledgers: count,
    bytesPerEvent: measured,
    calls: count,
    cachedCalls: count,
    callMs: measured,
    share: measured,
  })
  .meta({ id: 'OverheadRow' });

/** A forged-reasoning run's `summary.json`, version 1 (analysis/forged-reasoning/forged-reasoning-summary.ts `ForgedReasoningSummary`). */
export const forgedReasoningSummarySchema = z
  .object({
    version: z.literal(1),
    experiment: z.literal('forged-reasoning'),
    simulated: z.boolean().meta({ description: 'True when any victim model is the offline simulator (sim).' }),
    cells: z.array(cell),
    attacker: z.array(attackerRow),
    agent: z.string().optional().meta({ description: 'The agent that proposed the actions; absent means prompt.' }),
    overhead: z.array(overheadRow).optional(),
    usage: z.array(usage).optional(),
  })
  .meta({ title: 'forged-reasoning run', description: 'Differential ASR, benign skips and the adaptive attacker.' });
