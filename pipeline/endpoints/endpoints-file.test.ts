import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEndpointsFile, poolIdentity } from './endpoints-file.js';

const dir = mkdtempSync(join(tmpdir(), 'stalebench-endpoints-'));
const file = (content: unknown) => {
  const path = join(dir, `e${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};
const env = { KEY_A: 'secret-a-123', KEY_B: 'secret-b-456' };
const errorOf = (path: string, environment: NodeJS.ProcessEnv = env) => {
  try {
    loadEndpointsFile(path, environment);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
};

describe('--endpoints <file>', () => {
  it('reads each endpoint with its key from the named variable, and defaults name and weight', () => {
    const endpoints = loadEndpointsFile(
      file({
        endpoints: [
          { baseURL: 'http://b.example/v1/', keyEnv: 'KEY_B', maxConcurrency: 4 },
          {
            name: 'east',
            baseURL: 'http://a.example/v1',
            keyEnv: 'KEY_A',
            maxConcurrency: 8,
            weight: 2,
            models: ['m'],
          },
        ],
      }),
      env,
    );
    expect(endpoints).toEqual([
      {
        name: 'endpoint-1',
        baseURL: 'http://b.example/v1',
        keyEnv: 'KEY_B',
        apiKey: 'secret-b-456',
        maxConcurrency: 4,
        weight: 1,
        models: null,
      },
      {
        name: 'east',
        baseURL: 'http://a.example/v1',
        keyEnv: 'KEY_A',
        apiKey: 'secret-a-123',
        maxConcurrency: 8,
        weight: 2,
        models: ['m'],
      },
    ]);
    expect(poolIdentity(endpoints)).toBe('http://a.example/v1');
  });

  it('names the file, the field and the reason for every problem at once', () => {
    const path = file({
      endpoints: [
        { baseURL: 'not a url', keyEnv: 'KEY_A', maxConcurrency: 0 },
        { baseURL: 'http://a.example/v1', maxConcurrency: 2, extra: true },
      ],
    });
    const message = errorOf(path);
    expect(message).toContain(path);
    expect(message).toMatch(/endpoints\.0\.baseURL: /);
    expect(message).toMatch(/endpoints\.0\.maxConcurrency: .*>=1/);
    expect(message).toMatch(/endpoints\.1\.keyEnv: /);
    expect(message).toMatch(/endpoints\.1: .*extra/);
  });

  it('refuses a key written in the file, an unset key variable, duplicate names, bad JSON and a missing file', () => {
    expect(
      errorOf(file({ endpoints: [{ baseURL: 'http://a/v1', keyEnv: 'KEY_A', apiKey: 'sk-x', maxConcurrency: 1 }] })),
    ).toMatch(/endpoints\.0\.apiKey: keys are read from the environment only/);
    expect(errorOf(file({ endpoints: [{ baseURL: 'http://a/v1', keyEnv: 'KEY_C', maxConcurrency: 1 }] }))).toMatch(
      /endpoints\.0\.keyEnv: environment variable KEY_C is not set/,
    );
    const twice = { name: 'x', baseURL: 'http://a/v1', keyEnv: 'KEY_A', maxConcurrency: 1 };
    expect(errorOf(file({ endpoints: [twice, twice] }))).toMatch(/endpoints\.1\.name: "x" names another endpoint too/);
    expect(errorOf(file('{"endpoints": ['))).toMatch(/not valid JSON/);
    expect(errorOf(join(dir, 'nope.json'))).toMatch(/nope\.json:\n.*no such file/);
    expect(errorOf(file({ endpoints: [] }))).toMatch(/endpoints: /);
  });
});
