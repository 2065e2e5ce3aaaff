// The sim banner names the part the offline simulator produced: decisions, extraction, or both; a real model's run
// whose natural-mode extraction was simulated is not "decisions from the simulator" (issue #30 item 3).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEvalCli } from '../../pipeline/test-support/eval-cli.js';
import { startOpenAICompatibleServer, type TestServer } from '../../pipeline/test-support/openai-compatible-server.js';
import { loadScenarios } from '../../scenarios/index.js';
import { main as report } from '../report-command.js';
import { createViewSite } from './view-site.js';

let root: string;
let endpoint: TestServer;
const runs: Record<'real' | 'sim' | 'simDirect', string> = { real: '', sim: '', simDirect: '' };

const evalRun = async (name: string, args: string[], env: NodeJS.ProcessEnv) => {
  const out = join(root, name);
  const common = ['--systems', 'graphiti', '--scenarios', 'mfa_waiver_access', '--trials', '1', '--out', out];
  const { code, stderr } = await runEvalCli([...args, ...common], env);
  expect(code, stderr).toBe(0);
  return join(out, readdirSync(out)[0]!);
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'stalebench-sim-banner-'));
  const scenario = (await loadScenarios()).find((s) => s.id === 'mfa_waiver_access')!;
  endpoint = await startOpenAICompatibleServer(() => ({ content: `{"action": "${scenario.actions[1]}"}` }));
  const env = { OPENAI_BASE_URL: endpoint.baseURL, OPENAI_API_KEY: 'sk-test-banner' };
  runs.real = await evalRun(
    'real',
    ['--model', 'local-model', '--yes', '--modes', 'direct,natural', '--no-cache'],
    env,
  );
  runs.sim = await evalRun('sim', ['--model', 'sim', '--modes', 'direct,natural'], {});
  runs.simDirect = await evalRun('sim-direct', ['--model', 'sim', '--modes', 'direct'], {});
}, 120_000);
afterAll(async () => endpoint?.close());

/** The text of the banner (`id="sim-banner"`) of a page, or null. */
const bannerOf = (html: string) => /<p class="sim-banner" id="sim-banner"[^>]*>(.*?)<\/p>/s.exec(html)?.[1] ?? null;

async function reportBanner(dir: string) {
  const out = join(root, `report-${dir.split('/').at(-2)}`);
  expect(
    await report(
      [dir, '-o', out],
      () => {},
      () => {},
    ),
  ).toBe(0);
  return bannerOf(readFileSync(join(out, 'index.html'), 'utf8'));
}
async function viewBanner(dir: string) {
  const site = createViewSite([dir]);
  return bannerOf((await site.get(`/runs/${site.entries[0]!.slug}/index.html`)).body);
}

describe('the sim banner says which part was simulated', () => {
  it('a real model with simulated natural-mode extraction: extraction only, on the HTML report and in the viewer', async () => {
    const manifest = JSON.parse(readFileSync(join(runs.real, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ simulated: true, extraction: { simulated: true } });
    for (const banner of [await reportBanner(runs.real), await viewBanner(runs.real)]) {
      expect(banner).toMatch(/^sim \(simulated\): extraction only\./);
      expect(banner).toContain(manifest.extraction.id);
      expect(banner).not.toContain('decisions come from the offline simulator');
    }
  }, 60_000);

  it('sim in natural mode: decisions and extraction; sim in direct mode: decisions', async () => {
    for (const banner of [await reportBanner(runs.sim), await viewBanner(runs.sim)])
      expect(banner).toMatch(/^sim \(simulated\): decisions and extraction\./);
    for (const banner of [await reportBanner(runs.simDirect), await viewBanner(runs.simDirect)])
      expect(banner).toMatch(/^sim \(simulated\): decisions\. /);
  }, 60_000);
});
