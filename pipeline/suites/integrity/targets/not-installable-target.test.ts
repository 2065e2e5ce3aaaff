import { describe, expect, it } from 'vitest';
import { measuredRow } from './measured-row.js';
import { createNotInstallableTarget, MYTHOLOGIQ } from './not-installable-target.js';

describe('a row whose package cannot be installed here', () => {
  it('is in the scorecard with every cell not evaluable, naming why, and never runs a stand-in', async () => {
    const target = createNotInstallableTarget(MYTHOLOGIQ);
    const { row, result } = await measuredRow(target);
    expect(row).toEqual(['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9'].map((edit) => `${edit} not-evaluable`));
    expect(result.unavailable).toMatch(/published only as a git repository \(MythologIQ-Labs-LLC\/agent-memory/);
    expect(result.cells[0]?.reason).toMatch(/^not evaluable: published only as a git repository/);
    expect(result.description.label).toMatch(/\(not installable here\)$/);
    await expect(target.createStore({ dir: '/nonexistent', cellId: 'x', log: () => undefined })).rejects.toThrow(
      /cannot be installed here/,
    );
  });
});
