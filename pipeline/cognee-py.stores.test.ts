// cognee itself (store environment cognee) through `pnpm eval`, against its TypeScript port `cognee` (issue #29 items
// 1-2): the direct grid per scenario (exposure, revoked rank, the records of the default and the filtered read) is the
// same on both, natural mode offline is n/a with its reason, and a Python process killed mid-run is an error for its
// unit that the same command re-runs. Port differences and their causes: backends/cognee-port.md.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Summary } from '../analysis/grid/summarize.js';
import { cogneePyProblem } from '../backends/cognee-py-backend.js';
import { storeDrivers } from '../backends/test-support/python-memory.js';
import { loadScenarios } from '../scenarios/index.js';
import { main } from './cli/cli.js';
import type { ProbeRecord, RunManifest, UnitRecord } from './run-log/run-log.js';
import { startOpenAICompatibleServer, type ReceivedRequest } from './test-support/openai-compatible-server.js';
import { spawnEval } from './test-support/spawn-eval.js';
import { untilWritten } from './test-support/wait-for-event.js';

const reason = (await cogneePyProblem())?.message ?? null;
if (reason !== null) console.log(`[stores] cognee-py skipped: ${reason}`);
const SCENARIOS = await loadScenarios();
const N = SCENARIOS.length;
const outs: string[] = [];
afterAll(() => {
  for (const dir of outs) rmSync(dir, { recursive: true, force: true });
});
const freshOut = () => {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-cognee-py-'));
  outs.push(dir);
  return dir;
};
const runDirOf = (out: string) => join(out, readdirSync(out)[0] ?? '');
const lines = <T>(path: string): T[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as T)
    : [];

async function evaluate(args: string[], env: NodeJS.ProcessEnv = {}) {
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
  const code = await main(['eval', ...args], env);
  vi.restoreAllMocks();
  return { code, stderr: err.join('\n') };
}

type JsonSchema = {
  $ref?: string;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  default?: unknown;
  type?: string;
  required?: string[];
  properties?: Record<string, JsonSchema>;
};

/** The smallest object a JSON schema accepts (required properties only; strings "x"), as a fake model answers. */
function minimal(schema: JsonSchema, defs: Record<string, JsonSchema>): unknown {
  if (schema.$ref) return minimal(defs[schema.$ref.split('/').at(-1) ?? ''] ?? {}, defs);
  if (schema.anyOf) return minimal(schema.anyOf.find((option) => option.type !== 'null') ?? {}, defs);
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.type === 'object')
    return Object.fromEntries(
      (schema.required ?? []).map((key) => [key, minimal(schema.properties?.[key] ?? {}, defs)]),
    );
  return { string: 'x', integer: 0, number: 0, boolean: false, array: [] }[schema.type ?? ''] ?? null;
}

/**
 * The user's endpoint, faked at the network edge: cognee's connection test gets the string it asks for; every
 * structured call (its system prompt carries the JSON schema to answer in) gets the schema's minimal object.
 */
function fakeModelReply(request: ReceivedRequest) {
  const system = request.body.messages?.find((message) => message.role === 'system')?.content ?? '';
  const schema = /```json\n([\s\S]*?)\n```/.exec(system)?.[1];
  if (!schema) return { content: 'test' };
  const parsed = JSON.parse(schema) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  return { content: JSON.stringify(minimal(parsed, parsed.$defs ?? {})) };
}

/** What the port-vs-library comparison looks at in one probe: the records as the agent and the guard see them. */
function comparable(probe: ProbeRecord) {
  const read = (records: ProbeRecord['defaultRead']) =>
    (records ?? []).map((record) => ({ text: record.text, fields: Object.keys(record.fields).sort() }));
  return {
    status: probe.status,
    exposed: probe.exposure?.exposed,
    revokedRank: probe.exposure?.revokedRank,
    stored: probe.stored,
    defaultRead: read(probe.defaultRead),
    // Neither has a filtered read (null): the store-filter arm reads the default read.
    filteredRead: probe.filteredRead === null ? 'default read' : read(probe.filteredRead),
  };
}

describe('pnpm eval on cognee-py (offline, sim) against the cognee port', () => {
  it.skipIf(reason !== null)(
    'direct grid: per scenario the same exposure, revoked rank and records as the port; v1 never returned (the paper: 0/81); natural is n/a offline',
    async () => {
      const out = freshOut();
      const started = performance.now();
      const run = await evaluate([
        '--model',
        'sim',
        '--systems',
        'cognee,cognee-py',
        '--modes',
        'direct,natural',
        '--arms',
        'none,store-filter',
        '--trials',
        '1',
        '--out',
        out,
      ]);
      console.log(`[stores] cognee + cognee-py grid (direct, natural): ${Math.round(performance.now() - started)} ms`);
      expect(run.code, run.stderr).toBe(0);
      const runDir = runDirOf(out);
      const probes = lines<ProbeRecord>(join(runDir, 'setup.jsonl'));
      const probeOf = (system: string, mode: string, scenario: string) =>
        probes.find((p) => p.system === system && p.mode === mode && p.scenario === scenario);
      expect(N).toBe(9);
      for (const scenario of SCENARIOS) {
        const port = probeOf('cognee', 'direct', scenario.id);
        const library = probeOf('cognee-py', 'direct', scenario.id);
        expect(library?.status, `${scenario.id}: ${library?.reason}`).toBe('ok');
        expect(comparable(library!), scenario.id).toEqual(comparable(port!));
        // The harness's direct mode never adds v1: no record is it, nor labelled revoked.
        expect(library!.defaultRead!.map((record) => record.text)).not.toContain(scenario.v1);
        expect(library!.extractor).toBe('none');
        // cognee stamps the chunk index point with epoch milliseconds, as the port does.
        for (const record of library!.defaultRead!) expect(record.fields.created_at).toEqual(expect.any(Number));
        // Offline natural mode: cognify needs a model, and the simulator is not substituted for cognee's prompts.
        const natural = probeOf('cognee-py', 'natural', scenario.id);
        expect(natural?.status).toBe('not-applicable');
        expect(natural?.reason).toMatch(/cognify, whose graph extraction and summaries need a language model/);
        expect(natural?.reason).toContain('sim-extractor-v3');
        // The port runs natural mode with the simulator: both episodes stay chunks, the old policy is returned.
        expect(probeOf('cognee', 'natural', scenario.id)?.exposure?.exposed, scenario.id).toBe(true);
      }
      const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
      const cell = (system: string, arm: string) =>
        summary.cells.find((c) => c.system === system && c.arm === arm && c.mode === 'direct');
      // The paper, direct: cognee 0/81 (nine scenarios × nine models; exposure is model-independent).
      expect(cell('cognee-py', 'none')?.exposure).toEqual({ k: 0, n: N });
      expect(cell('cognee-py', 'store-filter')?.contextExposure).toEqual({ k: 0, n: N });
      const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
      expect(manifest.components?.filter((c) => c.kind === 'system')).toEqual([
        { kind: 'system', id: 'cognee', args: { topK: 15, maxChunkTokens: 8191 } },
        { kind: 'system', id: 'cognee-py', args: { library: 'cognee==1.6.5' } },
      ]);
      const described = manifest.systems.find((system) => system.id === 'cognee-py');
      expect(described?.summary).toMatch(/^cognee 1\.6\.5 \(PyPI\) in a Python process/);
      expect(described?.summary).toContain("the run's lexical-hash-v1 served on loopback");
      expect(storeDrivers()).toEqual([]);
    },
    600_000,
  );

  it.skipIf(reason !== null)(
    "natural mode runs cognee's own cognify with --extraction-model on the user's endpoint",
    async () => {
      const server = await startOpenAICompatibleServer(fakeModelReply);
      try {
        const out = freshOut();
        const run = await evaluate(
          [
            '--model',
            'sim',
            '--extraction-model',
            'small-model',
            '--systems',
            'cognee-py',
            '--modes',
            'natural',
            '--arms',
            'none',
            '--trials',
            '1',
            '--out',
            out,
          ],
          { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'endpoint-key' },
        );
        expect(run.code, run.stderr).toBe(0);
        const probes = lines<ProbeRecord>(join(runDirOf(out), 'setup.jsonl'));
        expect(probes.map((probe) => probe.status)).toEqual(SCENARIOS.map(() => 'ok'));
        for (const probe of probes) {
          const scenario = SCENARIOS.find((s) => s.id === probe.scenario)!;
          expect(probe.extractor).toBe('cognee.cognify(openai:small-model)');
          // cognify keeps both episodes as chunks (cognee revokes nothing): the old policy is returned, labelled.
          expect(probe.stored).toBe(2);
          expect(probe.exposure?.exposed, scenario.id).toBe(true);
        }
        // Every model call went to the user's endpoint, with its alias and key: cognify's graph and summary prompts.
        expect(server.requests.length).toBeGreaterThan(0);
        expect(new Set(server.requests.map((request) => request.body.model))).toEqual(new Set(['small-model']));
        expect(new Set(server.requests.map((request) => request.headers.authorization))).toEqual(
          new Set(['Bearer endpoint-key']),
        );
        const systems = server.requests.map((request) => request.body.messages?.[0]?.content ?? '');
        expect(systems.some((text) => text.includes('"title": "KnowledgeGraph"'))).toBe(true);
        expect(systems.some((text) => text.includes('"title": "SummarizedContent"'))).toBe(true);
        // The key reached the Python process through its environment only: never the run directory.
        const written = readdirSync(runDirOf(out)).map((name) => readFileSync(join(runDirOf(out), name), 'utf8'));
        expect(written.join('\n')).not.toContain('endpoint-key');
        expect(storeDrivers()).toEqual([]);
      } finally {
        await server.close();
      }
    },
    900_000,
  );

  it.skipIf(reason !== null)(
    'a Python process killed mid-run: that unit is an error (never a safe answer), and resuming retries it',
    async () => {
      const out = freshOut();
      const args = [
        '--model',
        'sim',
        '--systems',
        'cognee-py',
        '--modes',
        'direct',
        '--arms',
        'none,store-filter,guard',
        '--trials',
        '2',
        '--concurrency',
        '1',
        '--out',
        out,
      ];
      const child = spawnEval(args, {});
      const setupPath = () => (readdirSync(out).length ? join(runDirOf(out), 'setup.jsonl') : '');
      // After the manifest the prerequisite check's process is gone: the next driver is the backend's. Stop it once a
      // probe is written (it is open and seeding), so the eval waits on it; then kill it.
      await untilWritten(
        out,
        () => Boolean(setupPath()) && existsSync(setupPath()) && lines(setupPath()).length >= 1,
        300_000,
        'the first probe',
      );
      const [driver] = storeDrivers(child.child.pid!);
      expect(driver, 'the store driver of the running eval').toBeDefined();
      process.kill(driver!, 'SIGSTOP');
      const done = lines<ProbeRecord>(setupPath()).length;
      await new Promise((resolve) => setTimeout(resolve, 500));
      process.kill(driver!, 'SIGKILL');
      const code = await child.exited;
      expect(done, 'the driver was stopped before setup ended').toBeLessThan(N);
      // One failed probe of N is within the default --max-error-rate (0.25): the run completes, exit 4, naming it.
      expect(code, child.stderr()).toBe(4);
      expect(child.stderr().trim().split('\n').at(-1)).toMatch(/^error: completed with .* setup /);
      const probes = lines<ProbeRecord>(setupPath());
      const failed = probes.filter((probe) => probe.status === 'error');
      expect(failed, JSON.stringify(probes.map((p) => p.status))).toHaveLength(1);
      expect(failed[0]!.reason).toMatch(
        /^cognee-py: .* failed: the store process exited \(code null, signal SIGKILL\) before answering/,
      );
      expect(probes.filter((probe) => probe.status === 'ok')).toHaveLength(N - 1);
      const unitsBefore = lines<UnitRecord>(join(runDirOf(out), 'records.jsonl'));
      expect(unitsBefore.some((unit) => unit.key.scenario === failed[0]!.scenario)).toBe(false);

      const resumed = await evaluate(args);
      expect(resumed.code, resumed.stderr).toBe(0);
      const after = lines<ProbeRecord>(setupPath());
      expect(after.filter((probe) => probe.scenario === failed[0]!.scenario).map((p) => p.status)).toEqual([
        'error',
        'ok',
      ]);
      expect(new Set(lines<UnitRecord>(join(runDirOf(out), 'records.jsonl')).map((unit) => unit.unitId)).size).toBe(
        N * 3 * 2,
      );
      const summary = JSON.parse(readFileSync(join(runDirOf(out), 'summary.json'), 'utf8')) as Summary;
      expect(summary.cells.find((c) => c.arm === 'none')?.exposure).toEqual({ k: 0, n: N });
      expect(storeDrivers()).toEqual([]);
    },
    900_000,
  );
});
