import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '#core/errors.js';
import {
  fulltextSearchCypher,
  graphitiFulltextQuery,
  SCHEMA_STATEMENTS,
  similaritySearchCypher,
  validateGroupIds,
} from './neo4j-graphiti-queries.js';

describe("Graphiti's Neo4j schema and queries", () => {
  it("builds Graphiti's Lucene query: group clause, sanitised text, word cap", () => {
    expect(graphitiFulltextQuery('Who approves: AND (x)?', ['r1__ns'])).toBe(
      'group_id:"r1__ns" AND (Who approves\\: \\A\\N\\D \\(x\\)\\?)',
    );
    // Graphiti's `a OR b AND (q)` would require the last group; the group clauses are parenthesised instead.
    expect(graphitiFulltextQuery('q', ['a', 'b'])).toBe('(group_id:"a" OR group_id:"b") AND (q)');
    expect(graphitiFulltextQuery(Array.from({ length: 126 }, () => 'w').join(' '), ['g'])).not.toBeNull();
    expect(graphitiFulltextQuery(Array.from({ length: 127 }, () => 'w').join(' '), ['g'])).toBeNull();
  });

  it("creates Graphiti's 27 range and 4 fulltext indexes under Graphiti's names, and nothing of stalebench's", () => {
    const statements = SCHEMA_STATEMENTS.map((entry) => entry.statement);
    expect(statements.filter((statement) => statement.startsWith('CREATE INDEX '))).toHaveLength(27);
    expect(statements.join('\n')).not.toMatch(/stalebench/);
    expect(statements.filter((statement) => statement.startsWith('CREATE FULLTEXT INDEX '))).toHaveLength(4);
    expect(statements).toContain(
      'CREATE FULLTEXT INDEX edge_name_and_fact IF NOT EXISTS FOR ()-[e:RELATES_TO]-() ON EACH [e.name, e.fact, e.group_id]',
    );
    expect(statements).toContain(
      'CREATE FULLTEXT INDEX node_name_and_summary IF NOT EXISTS FOR (n:Entity) ON EACH [n.name, n.summary, n.group_id]',
    );
    expect(statements).toContain(
      'CREATE INDEX expired_at_edge_index IF NOT EXISTS FOR ()-[e:RELATES_TO]-() ON (e.expired_at)',
    );
    expect(SCHEMA_STATEMENTS.every((entry) => entry.statement.includes(` ${entry.name} IF NOT EXISTS `))).toBe(true);
  });

  it('limits index hits before the WHERE filter, and sorts by score alone, as Graphiti does', () => {
    const query = fulltextSearchCypher('((e.expired_at IS NULL))');
    expect(query.indexOf('{limit: $limit}')).toBeLessThan(
      query.indexOf('WHERE ((e.expired_at IS NULL)) AND e.group_id IN $group_ids'),
    );
    // No tie-breaker (Graphiti has none): ties keep the order the index returned them in.
    expect(query.trim().split('\n').slice(-2)).toEqual(['ORDER BY score DESC', 'LIMIT $limit']);
    // Cosine ties: Graphiti's traversal order is unpredictable, so the uuid breaks them (as in the embedded store).
    expect(similaritySearchCypher('true').trim().split('\n').slice(-2)).toEqual([
      'ORDER BY score DESC, e.uuid ASC',
      'LIMIT $limit',
    ]);
  });

  it('validates group ids as Graphiti does', () => {
    expect(() => validateGroupIds(['ok_1-2'])).not.toThrow();
    expect(() => validateGroupIds(['bad id', 'x"y'])).toThrow(InvalidInputError);
    expect(() => validateGroupIds([])).toThrow(/at least one group id/);
  });
});
