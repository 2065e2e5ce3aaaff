import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { InvalidInputError } from '#core/errors.js';
import {
  INDEX_FILE,
  loadScenarioDir,
  loadScenarioIndex,
  loadScenarios,
  POLICY_SCENARIO_DIR,
  POLICY_SCENARIO_IDS,
} from './index.js';
import { PAPER_TABLE8_EXCLUSIONS, PAPER_TABLE8_ROWS } from './test-support/paper-scenarios.js';

const invalid = async (load: Promise<unknown>): Promise<InvalidInputError> => {
  const error = await load.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(InvalidInputError);
  return error as InvalidInputError;
};

describe('the registry is scenarios/policy/index.json', () => {
  test('POLICY_SCENARIO_IDS is the index, in its order, and every scenario file of the folder is in it', async () => {
    const index = await loadScenarioIndex(POLICY_SCENARIO_DIR);
    expect(index?.scenarios.map((entry) => entry.id)).toEqual([...POLICY_SCENARIO_IDS]);
    const files = (await readdir(POLICY_SCENARIO_DIR)).filter((name) => name.endsWith('.json') && name !== INDEX_FILE);
    expect(files.map((name) => name.slice(0, -'.json'.length)).sort()).toEqual([...POLICY_SCENARIO_IDS].sort());
  });

  test('the paper\'s Table 8/11 row order and "excluding" rows are the index\'s table8 data (arXiv 2609.08258v1 Tables 8, 11)', async () => {
    const index = await loadScenarioIndex(POLICY_SCENARIO_DIR);
    const ranked = index!.scenarios.filter((entry) => entry.table8).sort((a, b) => a.table8!.rank - b.table8!.rank);
    expect(
      ranked.map((entry) => entry.id).filter((id) => (PAPER_TABLE8_ROWS as readonly string[]).includes(id)),
    ).toEqual([...PAPER_TABLE8_ROWS]);
    const exclusions = Object.fromEntries(
      index!.scenarios
        .filter((entry) => entry.table8?.pooledWithout)
        .map((entry) => [entry.id, entry.table8!.pooledWithout]),
    );
    expect(exclusions).toEqual(PAPER_TABLE8_EXCLUSIONS);
  });
});

describe('a scenario folder with an index', () => {
  let dir = '';
  const entries = [{ id: 'b_second' }, { id: 'a_first', table8: { rank: 1 } }];
  const write = (name: string, content: unknown) =>
    writeFile(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  const index = (scenarios: unknown) => write(INDEX_FILE, { about: 'test folder', source: 'this test', scenarios });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stalebench-index-'));
    const [mfa] = await loadScenarios({ ids: ['mfa_waiver_access'] });
    for (const { id } of entries) await write(`${id}.json`, { ...mfa, id });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  test("loads in the index's order, not the file names'", async () => {
    await index(entries);
    expect((await loadScenarioDir(dir)).map((scenario) => scenario.id)).toEqual(['b_second', 'a_first']);
    expect((await loadScenarioIndex(dir))?.scenarios).toEqual(entries);
  });

  test('a folder without an index loads sorted by file name, and has no index', async () => {
    expect((await loadScenarioDir(dir)).map((scenario) => scenario.id)).toEqual(['a_first', 'b_second']);
    expect(await loadScenarioIndex(dir)).toBeNull();
  });

  test('a scenario file the index leaves out, or an entry without its file, is refused, naming the index and the field', async () => {
    await index([{ id: 'b_second' }, { id: 'c_absent' }]);
    const error = await invalid(loadScenarioDir(dir));
    expect(error.source).toBe(join(dir, INDEX_FILE));
    expect(error.issues).toEqual([
      { path: 'scenarios[1].id', message: `no file c_absent.json in ${dir}` },
      {
        path: 'scenarios',
        message:
          'a_first.json is in the folder but not in the index; add { "id": "a_first" } where it belongs in grid order',
      },
    ]);
  });

  test('a duplicate id, a shared rank, an unknown key and a bad id are each reported with their path', async () => {
    await index([
      { id: 'a_first', table8: { rank: 2 } },
      { id: 'b_second', table8: { rank: 2, extra: true } },
      { id: 'a_first' },
      { id: 'Bad-Id' },
    ]);
    const error = await invalid(loadScenarioIndex(dir));
    expect(Object.fromEntries(error.issues.map((issue) => [issue.path, issue.message]))).toEqual({
      'scenarios[1].table8.extra': 'unrecognized key',
      'scenarios[3].id': 'must be snake_case letters and digits',
      'scenarios[1].table8.rank': "rank 2 is also a_first's",
      'scenarios[2].id': '"a_first" is also scenarios[0]',
    });
  });

  test('bad JSON in the index names the file, the line and the column', async () => {
    await write(INDEX_FILE, '{\n  "about": "x",\n  "scenarios": [{ "id": "a_first" },]\n}');
    const error = await invalid(loadScenarioDir(dir));
    expect(error.source).toBe(join(dir, INDEX_FILE));
    expect(error.issues).toEqual([{ path: '', message: 'invalid JSON at line 3, column 37: Expecting value' }]);
  });
});
