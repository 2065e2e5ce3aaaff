// End-to-end: the manifest records every component as its registry line built it ({kind, id, args}), never a secret.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { specFromArgs } from './cli/cli.js';
import type { RunManifest } from './run-log/run-log.js';
import { runEvaluation } from './run/run.js';

describe('manifest components', () => {
  it('records the experiment, engines, embedder, extraction model, decision models and systems with their arguments', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-components-'));
    const spec = specFromArgs(
      [
        '--model',
        'sim',
        '--systems',
        'mem0-exp,cognee',
        '--modes',
        'direct',
        '--arms',
        'none',
        '--trials',
        '1',
        '--scenarios',
        'mfa_waiver_access',
        '--out',
        out,
        '-q',
      ],
      {},
    );
    const outcome = await runEvaluation(
      spec,
      { apiKey: 'sk-never-recorded', neo4jPassword: 'pw-never-recorded' },
      { log: () => undefined },
    );
    expect(outcome.exitCode).toBe(0);
    const text = readFileSync(join(out, readdirSync(out)[0]!, 'manifest.json'), 'utf8');
    const manifest = JSON.parse(text) as RunManifest;
    expect(manifest.components).toEqual([
      { kind: 'experiment', id: 'grid', args: {} },
      { kind: 'graph-engine', id: 'embedded', args: {} },
      { kind: 'vector-engine', id: 'embedded', args: {} },
      { kind: 'embedder', id: 'lexical', args: {} },
      { kind: 'extraction-model', id: 'sim', args: {} },
      {
        kind: 'decision-model',
        id: 'sim',
        args: {
          seed: 0,
          parameters: {
            followRevoked: 0.5,
            guardrailFactor: 0.5,
            hardenFactor: 0.8,
            unparseableRate: 0,
            quoteRate: 0.5,
            followJournal: 0.8,
            followClaimedStep: 1,
            followImpliedStep: 0.9,
            followJudgment: 1,
          },
        },
      },
      { kind: 'system', id: 'mem0-exp', args: { variant: 'expired-shown' } },
      { kind: 'system', id: 'cognee', args: { topK: 15, maxChunkTokens: 8191 } },
      { kind: 'defence', id: 'none', args: {} },
    ]);
    // The fields written before the registries stay as they were.
    expect(manifest.models.map((m) => m.label)).toEqual(['sim (simulated)']);
    expect(manifest.systems.map((s) => s.id)).toEqual(['mem0-exp', 'cognee']);
    expect(manifest.modelsOnProviderDefaultTemperature).toEqual([]);
    expect(text).not.toContain('never-recorded');
  });

  it('records the defences the units use: composite arms with their parts, the axes, the guard with its settings', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-components-'));
    const spec = specFromArgs(
      [
        ...['--model', 'sim', '--systems', 'mem0-exp', '--modes', 'direct', '--arms', 'filter-hardening'],
        ...['--guard', 'off,on', '--trials', '1', '--scenarios', 'mfa_waiver_access', '--out', out, '-q'],
      ],
      {},
    );
    const outcome = await runEvaluation(spec, { apiKey: undefined }, { log: () => undefined });
    expect(outcome.exitCode).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, readdirSync(out)[0]!, 'manifest.json'), 'utf8')) as RunManifest;
    expect(manifest.components?.filter((component) => component.kind === 'defence')).toEqual([
      { kind: 'defence', id: 'store-filter', args: {} },
      { kind: 'defence', id: 'prompt-hardening', args: {} },
      { kind: 'defence', id: 'filter-hardening', args: {} },
      {
        kind: 'defence',
        id: 'guard',
        args: {
          subjectOverlap: 0.45,
          requireOpposition: true,
          trustExplicitFields: true,
          maxWithheldRatio: 0.6,
          annotate: true,
        },
      },
    ]);
  });
});
