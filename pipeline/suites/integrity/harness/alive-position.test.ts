import { describe, expect, it } from 'vitest';
import { integrityJson, integrityMarkdown } from '../../../../analysis/integrity/integrity-report.js';
import { scorecardMarkdown } from '../../../../analysis/integrity/integrity-scorecard.js';
import { allControlsHeld, measuredRow } from '../targets/measured-row.js';
import { ALL_EDITS } from './edits.js';
import type { IntegrityReport, TargetResult } from './integrity-result.js';
import { watcherTarget } from './test-support/watcher-target.js';

const report = (targets: TargetResult[]): IntegrityReport => ({
  version: 1,
  date: '2026-12-04T00:00:00.000Z',
  command: 'test',
  environment: { node: '20', platform: 'test', recordsPerContext: 5 },
  targets,
  exitCode: 0,
});

// integrity.md §2.3: a watcher that baselines on start sees every edit while it is up and none after a restart.
describe('the process position of a target (integrity.md §2.3)', () => {
  it('alive: the session of C1 stays up across the edit, and its audit in the same process reports T1–T9', async () => {
    const { row, result } = await measuredRow(watcherTarget('alive'));
    expect(row).toEqual(ALL_EDITS.map((edit) => `${edit} reported/audit`));
    // C1 (restart with no edit), C2 and C3 (the medium listed under the running process) all held.
    expect(allControlsHeld(result)).toBe(true);
    expect(result.cells.every((cell) => cell.stoppedDuringEdit === false)).toBe(true);
    expect(result.cells[0]?.reason).toBe(
      'watcher: context A changed since the last scan (a write the agent did not make)',
    );
    expect(result.metric).toMatchObject({ value: 0.5, partial: 8, accepted: 0, t9: 'reported' });
  }, 60_000);

  it('restarted (the default): the same watcher baselines from the edited store and accepts T1–T9', async () => {
    const { row, result } = await measuredRow(watcherTarget('restarted'));
    expect(row).toEqual(ALL_EDITS.map((edit) => `${edit} accepted`));
    expect(allControlsHeld(result)).toBe(true);
    expect(result.cells.every((cell) => cell.stoppedDuringEdit === true)).toBe(true);
  }, 60_000);

  it.each(['alive', 'restarted'] as const)(
    '%s: an edit whose hook the adapter lacks is not evaluable, and the session is stopped',
    async (position) => {
      const inner = watcherTarget(position);
      const target = {
        ...inner,
        createStore: async (settings: Parameters<typeof inner.createStore>[0]) => {
          const store = await inner.createStore(settings);
          return { ...store, raw: { ...store.raw, forge: undefined } };
        },
      };
      const { row, result } = await measuredRow(target, [{ edit: 'T5', variant: null }]);
      expect(row).toEqual(['T5 not-evaluable']);
      expect(result.cells[0]?.reason).toBe('not evaluable: the adapter has no forging hook (forge)');
    },
    60_000,
  );

  it('the position shows in --json, the report and the scorecard row label', async () => {
    const edits = [{ edit: 'T1' as const, variant: null }];
    const alive = (await measuredRow(watcherTarget('alive'), edits)).result;
    const plain = (await measuredRow({ ...watcherTarget('restarted'), id: 'plain' }, edits)).result;
    const undeclared: TargetResult = {
      ...plain,
      description: { ...plain.description, position: undefined },
    };
    delete undeclared.description.position;
    const both = report([alive, undeclared]);
    const json = integrityJson(both);
    expect(json.targets[0]?.position).toBe('alive');
    expect(Object.keys(json.targets[1] ?? {})).toEqual(['id', 'version', 'config', 'cells', 'metric']);
    const card = scorecardMarkdown(both);
    expect(card).toContain(
      '| start-baselined watcher over the LangGraph JS SqliteSaver (model) (process alive across the edit) |',
    );
    expect(card).toContain('| start-baselined watcher over the LangGraph JS SqliteSaver (model) | ');
    expect(card).toContain('Rows marked "process alive across the edit" kept the system up across each edit');
    expect(scorecardMarkdown(report([undeclared]))).toContain(
      'Every row was measured with the system stopped during each edit.',
    );
    expect(integrityMarkdown(both)).toContain(
      'the system stayed up across every edit, and the read and the audit ran in that same process (process-alive position)',
    );
  }, 60_000);
});
