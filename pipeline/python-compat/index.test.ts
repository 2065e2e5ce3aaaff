// The module's shape: it depends on nothing else in stalebench, and every fixture names a generator that exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = `${ROOT}data/fixtures/python-compat/`;

describe('python-compat', () => {
  it('imports only its own files and Node built-ins, so every layer may import it without a cycle', () => {
    const sources = readdirSync(HERE).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
    expect(sources.length).toBeGreaterThanOrEqual(10);
    for (const name of sources) {
      const specifiers = [
        ...readFileSync(`${HERE}${name}`, 'utf8').matchAll(/^(?:import|export)[^'"]*from '([^']+)'/gm),
      ].map((match) => match[1]);
      expect(
        specifiers.filter((specifier) => !/^\.\/[\w-]+\.js$|^node:/.test(specifier ?? '')),
        name,
      ).toEqual([]);
    }
  });

  it('every fixture names its CPython source and a generator script that exists', () => {
    const fixtures = readdirSync(FIXTURES).filter((name) => name.endsWith('.json'));
    expect(fixtures.length).toBeGreaterThanOrEqual(7);
    for (const name of fixtures) {
      const { source, generator } = JSON.parse(readFileSync(`${FIXTURES}${name}`, 'utf8')) as {
        source: string;
        generator: string;
      };
      expect(source, name).toMatch(/^CPython 3\.\d+\.\d+, Unicode \d+\.\d+\.\d+$/);
      expect(existsSync(`${ROOT}${generator}`), `${name}: ${generator}`).toBe(true);
    }
  });
});
