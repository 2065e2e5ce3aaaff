import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { specFromArgs } from '../../pipeline/cli/cli.js';
import type {
  PropagationRecord,
  ToolsRecord,
  WritebackRecord,
} from '../../pipeline/suites/follow-ups/follow-up-log.js';
import { runEvaluation } from '../../pipeline/run/run.js';
import { loadScenarios } from '../../scenarios/index.js';
import { main } from '../rescore-command.js';
import { copyRun, editJsonLine } from '../test-support/run-copies.js';

const scenarios = new Map((await loadScenarios()).map((s) => [s.id, s]));
const other = (scenario: string, action: string | null) => scenarios.get(scenario)!.actions.find((a) => a !== action)!;

const runs: Record<string, string> = {};
beforeAll(async () => {
  for (const experiment of ['writeback', 'propagation', 'tools']) {
    const out = mkdtempSync(join(tmpdir(), `stalebench-recompute-${experiment}-`));
    const spec = specFromArgs(
      [
        '--experiment',
        experiment,
        '--model',
        'sim',
        '--systems',
        'graphiti',
        '--guard',
        'off,on',
        '--poem',
        'off,on',
        '--trials',
        '1',
        '--out',
        out,
      ],
      {},
    );
    runs[experiment] = (await runEvaluation(spec, { apiKey: undefined })).runDir;
  }
}, 180_000);

async function rescore(runDir: string, ...flags: string[]) {
  const lines: string[] = [];
  // The hash chain would refuse every edited copy first (analysis/verify-run-command.test.ts); here the recomputation itself must name each edit.
  const code = await main(
    [runDir, '--no-verify', ...flags],
    (line) => void lines.push(line),
    (line) => void lines.push(line),
  );
  return { code, text: lines.join('\n') };
}

describe('pnpm rescore --check recomputes follow-up records (decision traces per hop and role, tool episodes)', () => {
  it('untouched runs: exit 0, every line re-derived', async () => {
    for (const [experiment, runDir] of Object.entries(runs)) {
      const { code, text } = await rescore(copyRun(runDir), '--check');
      expect(code, text).toBe(0);
      expect(text).toMatch(
        new RegExp(
          `every stored value matches its recomputation \\(${experiment}\\.jsonl: \\d+ line\\(s\\), summary\\.json\\)`,
        ),
      );
    }
  });

  it('write-back: a hop reply edited to parse differently, a flipped read label, an edited unsafe score', async () => {
    const reply = copyRun(runs.writeback!);
    const hop = editJsonLine<WritebackRecord>(
      join(reply, 'writeback.jsonl'),
      (r) => r.hops.length > 0 && r.hops[0]!.default.parsedAction !== null,
      (r) => {
        r.hops[0]!.default.reply!.text = `{"action": "${other(r.key.scenario, r.hops[0]!.default.parsedAction)}"}`;
      },
    );
    const before = hop.row.hops[0]!.default.parsedAction;
    const replyResult = await rescore(reply, '--check');
    expect(replyResult.code).toBe(1);
    expect(replyResult.text).toContain(
      `the first: writeback.jsonl:${hop.line} (${hop.row.unitId}) hops[0].default.parsedAction: stored "${before}", recomputed "${other(hop.row.key.scenario, before)}"`,
    );

    const label = copyRun(runs.writeback!);
    const labelled = editJsonLine<WritebackRecord>(
      join(label, 'writeback.jsonl'),
      (r) => (r.hop0?.readTrace.labels.length ?? 0) > 0,
      (r) => {
        r.hop0!.readTrace.labels[0] = !r.hop0!.readTrace.labels[0];
      },
    );
    const labelResult = await rescore(label, '--check');
    expect(labelResult.code).toBe(1);
    expect(labelResult.text).toContain(
      `the first: writeback.jsonl:${labelled.line} (${labelled.row.unitId}) hop0.readTrace.labels[0]`,
    );

    const score = copyRun(runs.writeback!);
    const scored = editJsonLine<WritebackRecord>(
      join(score, 'writeback.jsonl'),
      (r) => r.hop0Filtered?.unsafe === false,
      (r) => {
        r.hop0Filtered!.unsafe = true;
      },
    );
    const scoreResult = await rescore(score, '--check');
    expect(scoreResult.code).toBe(1);
    expect(scoreResult.text).toContain(
      `the first: writeback.jsonl:${scored.line} (${scored.row.unitId}) hop0Filtered.unsafe: stored true, recomputed false`,
    );
  });

  it('propagation: an edited role parsedAction, and an edited PoEM executed action', async () => {
    const runDir = copyRun(runs.propagation!);
    const role = editJsonLine<PropagationRecord>(
      join(runDir, 'propagation.jsonl'),
      (r) => r.roles.reviewer?.parsedAction != null,
      (r) => {
        r.roles.reviewer!.parsedAction = other(r.key.scenario, r.roles.reviewer!.parsedAction);
      },
    );
    const result = await rescore(runDir, '--check');
    expect(result.code).toBe(1);
    expect(result.text).toContain(
      `the first: propagation.jsonl:${role.line} (${role.row.unitId}) roles.reviewer.parsedAction`,
    );

    const gated = copyRun(runs.propagation!);
    const poem = editJsonLine<PropagationRecord>(
      join(gated, 'propagation.jsonl'),
      (r) => r.roles.executor?.poem?.verdict === 'overridden',
      (r) => {
        r.roles.executor!.poem!.executedAction = r.roles.executor!.poem!.proposedAction;
      },
    );
    const gatedResult = await rescore(gated, '--check');
    expect(gatedResult.code).toBe(1);
    expect(gatedResult.text).toContain(
      `the first: propagation.jsonl:${poem.line} (${poem.row.unitId}) roles.executor.poem.executedAction`,
    );
  });

  it('tools: the episode is replayed from its stored replies; an edited reply, flag, verdict or gate verdict is named', async () => {
    const cases: [(r: ToolsRecord) => boolean, (r: ToolsRecord) => void, string][] = [
      [
        (r) => (r.agent?.steps.length ?? 0) > 1,
        (r) => {
          r.agent!.steps[0]!.reply = '{"tool": "finish", "args": {}}';
        },
        'agent.steps[0].tool: stored',
      ],
      [
        (r) => r.agent !== null,
        (r) => {
          r.agent!.flags.secret_read = !r.agent!.flags.secret_read;
        },
        'agent.flags.secret_read',
      ],
      [
        (r) => r.agent?.verdict.safe === true,
        (r) => {
          r.agent!.verdict.safe = false;
        },
        'agent.verdict.safe: stored false, recomputed true',
      ],
      [
        (r) => r.agent?.poem?.[0]?.verdict === 'overridden',
        (r) => {
          r.agent!.poem![0]!.verdict = 'allowed';
        },
        'agent.poem[0].verdict: stored "allowed", recomputed "overridden"',
      ],
    ];
    for (const [find, edit, expected] of cases) {
      const runDir = copyRun(runs.tools!);
      const { line, row } = editJsonLine(join(runDir, 'tools.jsonl'), find, edit);
      const { code, text } = await rescore(runDir, '--check');
      expect(code, text).toBe(1);
      expect(text).toContain(`the first: tools.jsonl:${line} (${row.unitId}) ${expected}`);
    }
  });

  it('tools: a fired attack without its relapse, or a reply the recomputed episode needs but the run does not hold', async () => {
    const runDir = copyRun(runs.tools!);
    const { line, row } = editJsonLine<ToolsRecord>(
      join(runDir, 'tools.jsonl'),
      (r) => r.relapse !== undefined,
      (r) => void delete r.relapse,
    );
    const { code, text } = await rescore(runDir, '--check');
    expect(code).toBe(1);
    expect(text).toContain(
      `the first: tools.jsonl:${line} (${row.unitId}) relapse: stored (absent), recomputed (a relapse: the recomputed attack fired; it needs new model calls)`,
    );

    const cut = copyRun(runs.tools!);
    const short = editJsonLine<ToolsRecord>(
      join(cut, 'tools.jsonl'),
      (r) => (r.agent?.steps.length ?? 0) > 1,
      (r) => void r.agent!.steps.pop(),
    );
    const cutResult = await rescore(cut, '--check');
    expect(cutResult.code).toBe(1);
    const calls = short.row.agent!.steps.length - 1;
    expect(cutResult.text).toContain(
      `the first: tools.jsonl:${short.line} (${short.row.unitId}) agent.steps: stored (${calls} model call(s)), recomputed (the episode recomputed from them asks for call ${calls + 1}, which the run does not hold)`,
    );
  });

  it('summary.rescored.json of an untouched follow-up run is byte-identical to summary.json', async () => {
    const runDir = copyRun(runs.propagation!);
    expect((await rescore(runDir)).code).toBe(0);
    expect(readFileSync(join(runDir, 'summary.rescored.json'), 'utf8')).toBe(
      readFileSync(join(runDir, 'summary.json'), 'utf8'),
    );
  });
});
