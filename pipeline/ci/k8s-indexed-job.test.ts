// The Kubernetes Indexed Job example (pipeline/ci/k8s-indexed-job.yaml, issue #31 item 5): parsed (it is JSON, which
// is YAML, under comment lines), its env wired as `--shard auto` reads it, its services the ones the shards reach.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseShard } from '../run/shard.js';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Resource {
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown> & {
    completions?: number;
    parallelism?: number;
    completionMode?: string;
    ports?: { port: number }[];
    template?: { spec: { containers: { command?: string[]; args?: string[]; env?: EnvVar[] }[] } };
  };
}

const text = readFileSync(join(import.meta.dirname, 'k8s-indexed-job.yaml'), 'utf8');
// YAML comments are whole lines here; what is left is JSON (a YAML 1.2 document).
const manifest = JSON.parse(text.replace(/^\s*#.*$/gm, '')) as { kind: string; items: Resource[] };
const job = manifest.items.find((item) => item.kind === 'Job')!;
const container = job.spec.template!.spec.containers[0]!;
const env = container.env ?? [];
const literal = Object.fromEntries(
  env.flatMap((variable) => (variable.value === undefined ? [] : [[variable.name, variable.value]])),
);

describe('pipeline/ci/k8s-indexed-job.yaml', () => {
  it('is one List with an Indexed Job whose shards run pnpm eval --shard auto', () => {
    expect(manifest.kind).toBe('List');
    expect(job.spec.completionMode).toBe('Indexed');
    expect(job.spec.completions).toBeGreaterThan(1);
    expect(job.spec.parallelism).toBe(job.spec.completions);
    expect([...(container.command ?? []), ...(container.args ?? [])].join(' ')).toMatch(
      /pnpm eval .*--shard auto .*--out \/runs/,
    );
  });

  it('sets JOB_COMPLETIONS to spec.completions, leaves JOB_COMPLETION_INDEX to Kubernetes, and sets no other scheduler', () => {
    expect(literal.JOB_COMPLETIONS).toBe(String(job.spec.completions));
    const names = env.map((variable) => variable.name);
    expect(names).not.toContain('JOB_COMPLETION_INDEX');
    expect(names.filter((name) => name.startsWith('STALEBENCH_SHARD'))).toEqual([]);
  });

  it('gives every pod index its own shard through --shard auto, together all of them once', () => {
    const completions = job.spec.completions!;
    const shards = Array.from({ length: completions }, (_, index) =>
      parseShard('auto', { ...literal, JOB_COMPLETION_INDEX: String(index) }),
    );
    expect(shards).toEqual(Array.from({ length: completions }, (_, i) => ({ index: i + 1, count: completions })));
    // Without the index (a pod of a Job that is not Indexed) the shard is refused, naming it.
    expect(() => parseShard('auto', literal)).toThrow(/JOB_COMPLETION_INDEX/);
  });

  it('points the shards at the shared Neo4j and LiteLLM services, keys from a Secret', () => {
    const services = new Map(
      manifest.items
        .filter((item) => item.kind === 'Service')
        .map((item) => [item.metadata.name, item.spec.ports!.map((port) => port.port)]),
    );
    for (const [variable, scheme] of [
      ['NEO4J_URI', 'bolt'],
      ['OPENAI_BASE_URL', 'http'],
    ] as const) {
      const url = new URL(literal[variable]!);
      expect(url.protocol, variable).toBe(`${scheme}:`);
      expect(services.get(url.hostname), variable).toContain(Number(url.port));
    }
    for (const secret of ['NEO4J_PASSWORD', 'OPENAI_API_KEY']) {
      expect(literal[secret], secret).toBeUndefined();
      expect(env.find((variable) => variable.name === secret)?.valueFrom?.secretKeyRef?.name, secret).toBe(
        'stalebench',
      );
    }
    expect(manifest.items.filter((item) => item.kind === 'Deployment').map((item) => item.metadata.name)).toEqual([
      ...services.keys(),
    ]);
  });
});
