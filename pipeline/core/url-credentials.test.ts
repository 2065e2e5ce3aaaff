import { describe, expect, it } from 'vitest';
import { withoutPassword } from './url-credentials.js';

describe('withoutPassword', () => {
  it('replaces the password of every URL in a text, keeping the scheme, user, host and path', () => {
    expect(withoutPassword('postgresql://bench:s3cret@db:5432/agmi')).toBe(
      'postgresql://bench:[redacted]@db:5432/agmi',
    );
    expect(withoutPassword('redis-cli -u redis://:s3cret@cache:6379 FT._LIST')).toBe(
      'redis-cli -u redis://:[redacted]@cache:6379 FT._LIST',
    );
    expect(withoutPassword('at bolt+s://neo4j:pa%40ss@graph.example:7687 and https://u:p@h/x')).toBe(
      'at bolt+s://neo4j:[redacted]@graph.example:7687 and https://u:[redacted]@h/x',
    );
  });

  it('leaves URLs without a password as they are', () => {
    for (const text of [
      'bolt://127.0.0.1:7687',
      'postgresql://bench@db:5432/agmi',
      'https://api.openai.com/v1',
      'http://127.0.0.1:4000/v1/chat/completions?x=a:b@c',
      'mail ops@example.com at 10:30',
    ])
      expect(withoutPassword(text)).toBe(text);
  });
});
