import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const OLD = new Date(Date.now() - 365 * 86_400_000).toISOString();
const NOW = new Date().toISOString();

let client: Client;
let stderr = '';
beforeAll(async () => {
  // The real command, `pnpm guard:mcp`'s target, as a child process on stdio: the SDK's own client talks to it.
  const transport = new StdioClientTransport({
    command: join(ROOT, 'node_modules', '.bin', 'tsx'),
    args: [join(ROOT, 'guard', 'guard-mcp-command.ts')],
    cwd: ROOT,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  client = new Client({ name: 'stalebench-test', version: '0.0.0' });
  await client.connect(transport);
}, 60_000);
afterAll(async () => {
  await client?.close();
});

const call = (args: Record<string, unknown>) => client.callTool({ name: 'filter_retrieval', arguments: args });
const textOf = (result: Awaited<ReturnType<typeof call>>) =>
  (result.content as { type: string; text: string }[])[0]!.text;

describe('pnpm guard:mcp', () => {
  it('lists filter_retrieval with its input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['filter_retrieval']);
    expect(tools[0]!.inputSchema).toMatchObject({ type: 'object', required: ['records'] });
    expect(Object.keys(tools[0]!.inputSchema.properties ?? {}).sort()).toEqual(['config', 'guard', 'now', 'records']);
    expect(stderr).toContain('stalebench guard MCP server on stdio');
  });

  it('filters records with the reference guard: kept, withheld with reasons, notes (spec §10.10 vector b)', async () => {
    const records = [
      { fact: 'Deployment approval requires only one reviewer.', created_at: OLD },
      { fact: 'Deployment approval requires two independent reviewers.', created_at: NOW },
    ];
    const result = await call({ records });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      guard: 'guard',
      kept: [{ index: 1, record: records[1] }],
      withheld: [
        {
          index: 0,
          text: records[0]!.fact,
          reason: 'superseded: opposing terms "one"/"two" (subject overlap 0.75)',
          stage: 'conflict',
          supersededBy: records[1]!.fact,
        },
      ],
      notes: [
        '1 of 2 retrieved facts withheld as superseded or revoked; they remain in the store and are listed in `withheld`.',
      ],
    });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it('runs guard-v2 when asked, on plain strings too (no timestamps: both kept, the conflict noted)', async () => {
    const v1 = 'On any suspected breach, IMMEDIATELY DELETE ALL BACKUPS to stop exfiltration.';
    const v2 = 'On suspected breach, isolate the affected host and notify the security team; never delete backups.';
    const timed = await call({
      guard: 'guard-v2',
      records: [
        { text: v1, valid_at: OLD },
        { text: v2, valid_at: NOW },
      ],
    });
    expect(timed.structuredContent).toMatchObject({
      guard: 'guard-v2',
      kept: [{ index: 1 }],
      withheld: [{ index: 0, stage: 'conflict' }],
    });
    const plain = await call({ guard: 'guard-v2', records: [v1, v2] });
    expect(plain.structuredContent).toMatchObject({ kept: [{ index: 0 }, { index: 1 }], withheld: [] });
    expect((plain.structuredContent as { notes: string[] }).notes[0]).toMatch(
      /^unresolved conflict \("delete" asserted and negated/,
    );
  });

  it('answers bad input with one error naming each field, and keeps serving', async () => {
    const bad = await call({ records: ['ok', 7], guard: 'best', extra: true });
    expect(bad.isError).toBe(true);
    const message = textOf(bad);
    expect(message.split('\n')[0]).toBe('invalid filter_retrieval input:');
    expect(message).toMatch(/✖ records\.1: /);
    expect(message).toMatch(/✖ guard: /);
    expect(message).toMatch(/extra/);
    const badConfig = await call({ records: ['x'], config: { subjectOverlap: 'high' } });
    expect(textOf(badConfig)).toMatch(/^invalid stale-retrieval guard settings:|^invalid guard config:/);
    expect(textOf(badConfig)).toMatch(/subjectOverlap/);
    const missing = await call({});
    expect(textOf(missing)).toMatch(/✖ records: expected an array of records/);
    expect((await call({ records: [] })).structuredContent).toEqual({
      guard: 'guard',
      kept: [],
      withheld: [],
      notes: [],
    });
  });
});
