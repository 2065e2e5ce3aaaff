import { describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import { createLanggraphSqliteTarget } from './langgraph-sqlite-target.js';
import { allControlsHeld, measuredRow } from './measured-row.js';

// Pinned measurement: agmi published every edit accepted for the Python SqliteSaver 3.1.1 (integrity.md §8.1).
describe('langgraph-sqlite target (real LangGraph JS SqliteSaver)', () => {
  it('1.0.4 matches the published pattern: every edit T1–T9 accepted, C1–C3 holding, T3 in the repointed form', async () => {
    const target = createLanggraphSqliteTarget();
    expect((await target.describe()).versions['@langchain/langgraph-checkpoint-sqlite']).toBe('1.0.4');
    const { row, result } = await measuredRow(target);
    expect(row).toEqual(ALL_EDITS.map((edit) => `${edit} accepted`));
    expect(allControlsHeld(result)).toBe(true);
    expect(result.cells.find((cell) => cell.edit === 'T3')?.form).toBe(
      'deleted; successor repointed to its predecessor',
    );
    expect(result.cells.find((cell) => cell.edit === 'T1')?.commands[0]).toMatch(
      /^sqlite3 store\/checkpoints.db "UPDATE checkpoints SET checkpoint = \? WHERE thread_id = \? AND checkpoint_ns = \? AND checkpoint_id = \?" -- x'/,
    );
  }, 120_000);
});
