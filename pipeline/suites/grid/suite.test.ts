// The grid as a SuiteV1 (issue #27 item 1): its plan is exactly the units a run records, from the spec and what the
// setup phase found; its summary over the stored records is the summary.json `pnpm eval` wrote; its arguments refuse
// a bad value by field.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunHead, readRunRecords, summaryRecordOf } from '../../../analysis/index.js';
import { specFromArgs } from '../../cli/cli.js';
import { runEvaluation } from '../../run/run.js';
import type { ArmId } from '../../run/arms.js';
import { probeIdOf } from '../../run-log/run-log.js';
import { type GridArgs, type GridUnit, gridArgsOf, gridSuite } from './suite.js';

let out = '';
let runDir = '';
let args: GridArgs;
beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'stalebench-grid-suite-'));
  const spec = specFromArgs(
    [
      ...['--model', 'sim', '--systems', 'graphiti,zep-ce', '--modes', 'direct,natural'],
      ...['--arms', 'none,output-filter,zep-oracle-filter', '--guard', 'off,on', '--trials', '2', '--out', out],
    ],
    {},
  );
  runDir = (await runEvaluation(spec, { apiKey: undefined })).runDir;
  const { manifest, probes } = readRunHead(runDir);
  args = gridArgsOf(manifest.spec, manifest.spec, probes);
}, 180_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('gridSuite', () => {
  it('plans exactly the units the run recorded, each once, and the same ones on every walk', () => {
    const recorded = readRunRecords(runDir, (record) => record.key);
    const planned = [...gridSuite.plan(args)];
    expect(planned.length).toBe(recorded.size);
    expect(new Set(planned.map((unit) => unit.id))).toEqual(new Set(recorded.keys()));
    for (const unit of planned) expect(recorded.get(unit.id)).toEqual(unit.key);
    expect([...gridSuite.plan(args)].map((unit) => unit.id)).toEqual(planned.map((unit) => unit.id));
    // The output filter reuses the none reply: its units are the later stage, and only they are.
    expect(planned.filter((unit) => unit.stage === 1).every((unit) => unit.key.arm === 'output-filter')).toBe(true);
    expect(planned.filter((unit) => unit.key.arm === 'output-filter').every((unit) => unit.stage === 1)).toBe(true);
  });

  it('has a unit only where its probe succeeded, and the oracle filter only where the rule is oracle', () => {
    const planned = [...gridSuite.plan(args)];
    const oracle = planned.filter((unit) => unit.key.arm === ('zep-oracle-filter' as ArmId));
    expect(oracle.length).toBeGreaterThan(0);
    expect(new Set(oracle.map((unit) => unit.key.system))).toEqual(new Set(['zep-ce']));
    const [dropped] = Object.keys(args.probed);
    const without = {
      ...args,
      probed: Object.fromEntries(Object.entries(args.probed).filter(([id]) => id !== dropped)),
    };
    const left = [...gridSuite.plan(without)];
    const probeOf = ({ key }: GridUnit) => probeIdOf(key.system, key.mode, key.scenario);
    expect(left.some((unit) => probeOf(unit) === dropped)).toBe(false);
    expect(left.map((unit) => unit.id)).toEqual(
      planned.filter((unit) => probeOf(unit) !== dropped).map((unit) => unit.id),
    );
    expect(left.length).toBeLessThan(planned.length);
  });

  it('summarises the stored records into the summary.json the run wrote, byte for byte (usage aside)', () => {
    const written = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Record<string, unknown>;
    const head = readRunHead(runDir);
    const records = [...readRunRecords(runDir, summaryRecordOf).values()];
    const info = { startedAt: head.manifest.createdAt, command: 'pnpm eval', runtime: head.manifest.runtime, head };
    const { usage: _usage, ...summary } = { ...gridSuite.summarize(records, args, info), usage: undefined };
    const { usage: _written, ...rest } = written;
    expect(JSON.stringify(summary)).toBe(JSON.stringify(rest));
  });

  it('refuses bad arguments by field', () => {
    expect(() => gridSuite.args.parse({ ...args, trials: 0 })).toThrow(/trials/);
    expect(() => gridSuite.args.parse({ ...args, modes: ['sideways'] })).toThrow(/modes/);
    expect(() => gridSuite.args.parse({ ...args, extra: 1 })).toThrow(/extra/);
  });
});
