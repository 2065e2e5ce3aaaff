import { describe, expect, it } from 'vitest';
import { groupId } from './graphiti-ids.js';
import { mem0UserId } from './mem0-records.js';
import { namespaceRoot, nonceOfName, rootPrefix } from './run-namespace.js';

describe('run namespace roots', () => {
  it('carry the nonce first, so every derived name of one process shares one prefix', () => {
    const root = namespaceRoot('gpt-5-nano_1a2b3c4d', '0badcafe');
    expect(root).toBe('sb0badcafe_gpt_5_nano_1a2b3c4d');
    // Graphiti keeps a plain root unescaped: the group id starts with the prefix, and so does mem0's user id.
    expect(groupId(root, 'mfa_waiver_access')).toBe('sb0badcafe_gpt_5_nano_1a2b3c4d__mfa_waiver_access');
    expect(groupId(root, 'writeback-mfa-0123').startsWith(rootPrefix('0badcafe'))).toBe(true);
    expect(mem0UserId(root, 'mfa').startsWith(rootPrefix('0badcafe'))).toBe(true);
    expect(nonceOfName(groupId(root, 'x'))).toBe('0badcafe');
    expect(nonceOfName(`${root}_langmem_store`)).toBe('0badcafe');
  });

  it('differ for two processes of one run, and keep the bare run id without a nonce', () => {
    expect(namespaceRoot('run', '00000001')).not.toBe(namespaceRoot('run', '00000002'));
    expect(namespaceRoot('run', undefined)).toBe('run');
    expect(namespaceRoot('---', '00000001')).toBe('sb00000001_run');
    expect(namespaceRoot('x'.repeat(80), '00000001')).toHaveLength(2 + 8 + 1 + 40);
    expect(() => namespaceRoot('run', 'NOTHEX!!')).toThrow(RangeError);
  });

  it('keep the tail of a long run id: two shards of one run differ even without their nonces', () => {
    const runId = 'gpt-5-nano+gpt-5-mini+claude-sonnet-4_1a2b3c4d';
    const one = namespaceRoot(`${runId}_shard1of3`, '00000001');
    const two = namespaceRoot(`${runId}_shard2of3`, '00000001');
    expect(one).not.toBe(two);
    expect(one.endsWith('1a2b3c4d_shard1of3')).toBe(true);
    expect(one).toHaveLength(2 + 8 + 1 + 40);
  });

  it('recognise only names derived from a root', () => {
    expect(nonceOfName('conformance__g1')).toBeNull();
    expect(nonceOfName('sb0badcaf_x')).toBeNull();
    expect(nonceOfName('memory_migrations')).toBeNull();
  });
});
