import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBackend } from '../backends/index.js';
import { createLexicalEmbedder } from '../backends/lexical-embedder.js';
import { createSimExtractionModel } from '../backends/sim-extraction-model.js';
import { episodesFor } from '../pipeline/suites/grid/episodes.js';
import { openRevocationLedger } from './revocation-ledger.js';
import { withRevocationLedger } from './revocation-ledger-client.js';

const v1 = 'MFA may be waived for admin access when the requester is in a hurry. Approved shortcut.';
const v2 = 'Admin access always requires MFA; waivers are never permitted.';
const scenario = { id: 'mfa', v1, v2, distractors: ['VPN is required for remote access.'] };
const query = 'Was there ever an approved MFA-waiver procedure for admin access?';

async function ledgered(system: string) {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-client-'));
  const backend = await loadBackend(system, {
    embedder: createLexicalEmbedder(),
    extraction: createSimExtractionModel(),
    runId: 'client',
    workDir: dir,
  });
  await backend.open();
  const path = join(dir, 'ledger.jsonl');
  const ledger = openRevocationLedger({ path, witnessPath: join(dir, 'witness.json'), key: randomBytes(32) });
  return { backend, client: withRevocationLedger(backend, ledger), path };
}

describe('the revocation ledger client', () => {
  it('binds the ids a direct write produced and the application’s revocation; an un-revoked record is then not trusted', async () => {
    const { backend, client, path } = await ledgered('graphiti');
    const now = new Date();
    await client.backend.insert({ namespace: 'ns', now, writes: { mode: 'direct', revoked: [v1], current: [v2] } });
    const entries = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).payload);
    const ids = (await backend.listRecords!('ns')).map((stored) => stored.record.id).sort();
    expect(
      entries
        .filter((e) => e.kind === 'bind')
        .map((e) => e.id)
        .sort(),
    ).toEqual(ids);
    expect(entries.filter((e) => e.kind === 'supersede')).toHaveLength(1);
    const read = async () => (await backend.search({ namespace: 'ns', query, limit: 10 })).records;
    const status = (records: Awaited<ReturnType<typeof read>>) =>
      client
        .verdicts('ns', records, now)
        .map((verdict, index) => `${records[index]!.text.slice(0, 9)} ${verdict.status}`);
    expect(status(await read())).toEqual(expect.arrayContaining(['MFA may b revoked', 'Admin acc current']));
    expect(client.verdicts('ns', await read(), now)[0]?.reason).toContain('superseded by the application');
    await backend.unrevoke!('ns');
    const revived = await read();
    expect(revived.every((record) => record.fields.expired_at === null)).toBe(true);
    const judged = client.verdicts('ns', revived, now).find((_, index) => revived[index]!.text === v1);
    expect(judged?.reason).toMatch(/^revocation ledger: status not bound: the store serves it as current/);
    await backend.close();
  });

  it('on a store with no status and no listing (langmem), finds the revoked statement in what the store derived', async () => {
    const { backend, client } = await ledgered('langmem');
    const now = new Date();
    await client.backend.insert({
      namespace: 'ns',
      now,
      writes: { mode: 'natural', episodes: episodesFor(scenario, now) },
    });
    await client.supersede('ns', v1, v2, now);
    const records = (await backend.search({ namespace: 'ns', query, limit: 10 })).records;
    const verdicts = client.verdicts('ns', records, now);
    const byText = Object.fromEntries(records.map((record, index) => [record.text, verdicts[index]!.status]));
    // langmem's manager (enable_deletes) removed the first sentence of v1; its second survived as a memory of its own.
    expect(byText).toEqual({
      "{'content': 'Policy DOC-00 has been revised and now supersedes the 2024 issue.'}": 'current',
      "{'content': 'Policy DOC-00, issued in 2024, governs the System.'}": 'current',
      "{'content': 'Approved shortcut.'}": 'revoked',
      "{'content': 'Admin access always requires MFA; waivers are never permitted.'}": 'current',
      "{'content': 'VPN is required for remote access.'}": 'current',
    });
    expect(
      verdicts.filter((v) => v.status === 'revoked').every((v) => v.reason.includes('superseded by the application')),
    ).toBe(true);
    await backend.close();
  });
});
