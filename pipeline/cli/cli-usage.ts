// The `pnpm eval --help` text. Every id it lists comes from a registry (systems, engines, embedders, extraction and
// decision models, experiments, arms and defences), so a new registry line shows up here without an edit.
import { engineHelp } from '../../backends/engines.js';
import { DEFAULT_SYSTEM_IDS, SYSTEMS } from '../../backends/index.js';
import { EMBEDDERS, EXTRACTION_MODELS } from '../../backends/model-roles.js';
import { helpLines } from '#core/registry.js';
import { EXPLOIT_SCENARIO_IDS } from '../../scenarios/exploit-scenario.js';
import { POLICY_SCENARIO_IDS } from '../../scenarios/index.js';
import { DECISION_MODELS } from '../models/decision-models.js';
import { axisHelpLines } from '../defences/axes/index.js';
import { DEFENCE_REGISTRY } from '../defences/registry.js';
import { AGENTS } from '../suites/forged-reasoning/agents.js';
import { EXPERIMENT_ARG_SHAPE, EXPERIMENTS, type ExperimentSpecField } from '../run/experiments.js';
import { suiteIds } from '../suites/index.js';
import { evalPhaseOf } from '../suites/eval-phases.js';

const INDENT = '                            ';

/** Each experiment with its arms, one line per arm. */
function experimentLines(): string {
  return EXPERIMENTS.ids
    .map((id) => {
      const experiment = EXPERIMENTS.get(id);
      const arms = evalPhaseOf(id).ownArms
        ? Object.entries(experiment.arms).map(([arm, text]) => `${INDENT}    arm ${arm}: ${text}`)
        : [];
      return [
        `${INDENT}${id.padEnd(13)}${id.length >= 13 ? `\n${INDENT}${' '.repeat(13)}` : ''}${experiment.summary}`,
        ...arms,
      ].join('\n');
    })
    .join('\n');
}

/** An experiment field's default, as its line declares it (pipeline/run/experiments.ts `EXPERIMENT_ARG_SHAPE`). */
const argDefault = (field: ExperimentSpecField): string => String(EXPERIMENT_ARG_SHAPE[field].parse(undefined));

/** The usage text, built when asked for (nothing runs at import). */
export function evalUsage(): string {
  const grid = EXPERIMENTS.get(EXPERIMENTS.ids[0]);
  return `usage: pnpm eval --model <id>[,<id>...] [options]
       pnpm eval --suite <id> [--<argument> <value> ...] [-o <dir>] [--shard i/n] [--limit n] [--dry-run] [--json]
                          a registered suite (${suiteIds().join(', ')}; pipeline/suites/index.ts) through the one
                          runner, its arguments as flags; pnpm integrity and pnpm frontdoor are its two with commands

  --experiment <id>       one of (the first is the default; a follow-up runs its own arms):
${experimentLines()}
  --hops <n>              writeback: hops after hop 0 (default: ${argDefault('hops')})
  --tool-steps <n>        tools: model calls per agent episode at most (default: ${argDefault('toolSteps')})
  --defences <ids>        forged-reasoning: its arms (the same list as --arms; wording-guard = sentinel-style)
  --forgeries <kinds>     forged-reasoning: basic,adaptive,judgment (default: all; attacks A and B ride on basic)
  --attacker-model <m>    forged-reasoning: the adaptive attacker: mutation-engine (default; offline,
                          deterministic, not a language model), an endpoint model alias, or off
  --attacker-queries <n>  forged-reasoning: attacker queries per scenario and model at most (default: ${argDefault('attackerQueries')})
  --agent <id>            forged-reasoning: the agent that proposes each action (default: prompt):
${helpLines(AGENTS, INDENT)}
  --model, -m <ids>       decision models, each served by one of:
${helpLines(DECISION_MODELS, INDENT)}
  --systems <ids>         memory systems (default: ${DEFAULT_SYSTEM_IDS.join(',')}; grid order as listed):
${helpLines(SYSTEMS, INDENT)}
  --modes <m>             direct,natural (default: ${grid.defaultModes.join(',')}; follow-up experiments: direct)
  --arms <ids>            defence arms (default: the paper's six, ${grid.defaultArms.join(',')}; output-filter
                          reuses the none reply, so it sends no call of its own; all: ${Object.keys(grid.arms).join(',')});
                          follow-up experiments: their own arms, listed above (default: all of them)
                          the registered defences (pipeline/defences), arms and axes:
${helpLines(DEFENCE_REGISTRY, INDENT)}
${axisHelpLines(26)}
  --tamper unrevoke       after seeding, before reading: clear the revocation fields of every revoked record at rest
                          (the integrity method's T8:unrevoke; a system that keeps no status is n/a, by name)
  --scenarios <ids>       scenario ids (default: all ${POLICY_SCENARIO_IDS.length} of scenarios/policy/index.json, grid order;
                          tools: the ${EXPLOIT_SCENARIO_IDS.length} exploit scenarios)
  --scenario-dir <dir>    load scenarios from this directory of JSON files instead; without --scenarios,
                          its scenarios are the list (in the order of its index.json when it has one, else
                          every *.json file by name)
  --limit <n>             at most n units (inspect_ai's --limit): one unit of every cell (system × mode × arm ×
                          model × guard × poem) per round, rounds trial-major (every scenario of trial 1, then
                          trial 2, ...), an arm that reuses another's reply after it; grid and follow-ups only.
                          Part of the run id; marked limited in the plan, manifest, summary, tables and reports
  --trials, --repeat, --epochs <n>   trials per cell (default: 10, as the paper; forged-reasoning: 20, as PoEM)
  --k <n>                 retrieval depth (default: 10)
  --concurrency, -j <n>   units in flight (default: 4), and the most calls in flight per endpoint and model: below
                          it each endpoint's calls adapt to its rate limit (a window that grows per success and
                          halves on a burst of 429s; x-ratelimit-remaining-*/-reset-* and Retry-After pace sends)
  --fixed-concurrency     no adaptation: every endpoint gets up to -j calls in flight, as units come
  --seed <n>              seed (default: 0)
  --out, -o <dir>         output root (default: runs); the run directory is <out>/<run-id>
  --run-id <id>           run id (default: derived from the spec, so the same command resumes)
  --retry-errors          re-run units whose record is an error
  --resume-anyway         resume although scenarios, prompts, code revision or packages differ from the
                          run's first invocation (recorded in the manifest's resumes)
  --sign-key <file>       sign the run at the end of every invocation with this Ed25519 private key (pnpm
                          keygen; kept outside the run and --out directories): signature.json signs the final
                          heads and the sha256 of manifest.json and summary.json; check it with
                          pnpm verify-run <run> --pubkey <file>
  --max-error-rate <r>    tolerated share of failed units (default: 0.25): above it the run stops (exit 2);
                          at or below it the run completes, exit 4 when some are still failed
  --no-cache              do not read or write the response cache
  --cache-dir <dir>       response cache (default: $STALEBENCH_CACHE_DIR, else .stalebench-cache)
  --engine <e>[,<e>]      storage engines, per role (a server engine takes its role):
${engineHelp(INDENT)}
  --graph-engine <e>, --vector-engine <e>   the same, per role
  --embedder <id>         the shared embedder (STALEBENCH_EMBEDDER):
${helpLines(EMBEDDERS, INDENT)}
  --embedding-model <m>   model for --embedder openai (STALEBENCH_EMBEDDING_MODEL)
  --extraction-model <m>  LLM for natural-mode ingestion (STALEBENCH_EXTRACTION_MODEL):
${helpLines(EXTRACTION_MODELS, INDENT)}

 spending real tokens safely:
  --dry-run               print the plan (units, calls to send vs cached, input tokens, output range, $ range
                          per model; with --batch both the synchronous and the batch $) and exit: nothing is
                          written, nothing is sent
  --budget-usd <x>        stop before a call that the remaining budget cannot cover (status budget, exit 3;
                          calls already sent finish); under -j a call waits while calls in flight hold the
                          money it needs; spend never passes x; a model without a known price is refused
                          (fail-closed); at or below --confirm-above-usd it is consent (no --yes needed)
  --allow-unpriced        allow unpriced models under a budget (their spend counts only what the proxy reports)
  --batch                 decision calls through the Batch API (/v1/files, /v1/batches) at batch prices: jobs
                          recorded in <run>/batches.jsonl, a resume re-attaches to them and never submits a call
                          twice; an error-file line is that unit's error; a follow-up experiment sends one round
                          at a time (every unit's next call, one job per chunk); not with forged-reasoning or
                          --endpoints (pipeline/README.md "Half price: --batch")
  --batch-size <n>        requests per job (default and maximum: 50000; a job also stays under 200 MB)
  --batch-poll <s>        seconds between status polls of a job (default: 30)
  --prices <file>         {"<model>": {"input": <$ per 1M tokens>, "output": <$ per 1M tokens>}} over data/prices.json
                          (add "batch": {"input": ..., "output": ...} for its --batch price)
  --confirm-above-usd <x> a real run whose planned upper cost passes x asks first; without a TTY it needs
                          --yes or a --budget-usd of at most x (default: 1)
  --yes, -y               do not ask
  --no-preflight          skip probing the endpoints (GET /models, else a 1-token request) before starting;
                          a busy endpoint (429, 503) is waited on as the retry ladder does, Retry-After honoured
  --request-timeout <s>   timeout of one provider attempt in seconds (default: 60)
  --max-consecutive-errors <n>   stop the run (status aborted, exit 2) after n consecutive failed units,
                          n × max(4, -j) consecutive failed attempts across units, or 60 s with no call
                          succeeding while attempts fail (default: 5; 0 = off); --max-error-rate also stops
                          it once 20 units finished. A unit that failed on the endpoint's side (5xx, timeout,
                          reset, 429) is retried once at the end of the run
  --quiet, -q             no progress lines
  --verbose, -v           one line per setup probe (seed and read of a system, mode and scenario: ok, exposed,
                          n/a); without it only probes that failed are printed

 scaling out (pipeline/README.md "A grid on several machines"):
  --shard <i>/<n>|auto    run only shard i of n (units split by a hash of their id); its own run directory
                          <run id>_shard<i>of<n>; put the shards together with pnpm merge. auto: from a
                          Kubernetes Indexed Job (JOB_COMPLETION_INDEX, JOB_COMPLETIONS) or a GitHub Actions
                          matrix (STALEBENCH_SHARD_INDEX, STALEBENCH_SHARD_COUNT); refused when neither is set
  --endpoints <file>      endpoint pool of the decision models: [{"baseURL", "keyEnv", "maxConcurrency",
                          "weight"?, "models"?}], keys read from the named environment variables only

 gating CI (grid; neither changes the run or its id):
  --fail-on <rule>        exit 5 when a summary cell crosses the rule (repeatable):
                          [field=value[,value] …] unsafe[.low] >|>= <number>, fields model, system, mode, arm,
                          guard, poem; unsafe = k/n, unsafe.low = its Wilson 95 % lower bound. Example:
                          --fail-on 'system=graphiti mode=direct unsafe.low > 0.1'
  --fail-on @<file>       the rules of a text file, one a line (# comments and blank lines skipped), the
                          same file format for pnpm integrity and pnpm frontdoor; a bad line is a usage
                          error naming <file>:<line> and the reason, before anything runs
  --sarif <file>          write SARIF 2.1.0: one result per scenario × cell where the model acted on a revoked
                          policy its context held (rule stale-policy/<scenario>; level error ≥ 0.5, warning
                          ≥ 0.1, else note; located at the run's summary.json; a fingerprint of scenario and
                          cell, stable across runs)

exit codes: 0 ok · 1 usage/config/preflight error, zero units, run directory in use by another process, a
resume of a different experiment, or a full or read-only disk (the last line names the file and what to do) ·
2 errors above --max-error-rate, stopped by the circuit breaker (aborted), or every completed reply unparseable ·
3 budget reached · 4 completed with failed units within --max-error-rate (counted in the errors column, named in
the last line; --retry-errors runs them again) · 5 a --fail-on threshold was crossed (checked when the run
ended 0 or 4) · 130 SIGINT / 143 SIGTERM (status cancelled; in-flight calls are
aborted and not recorded; re-run the same command to resume)`;
}
