// `pnpm verify-run <run-dir>...`: checks each run's hash-chained JSONL files against each other and manifest.json.
import { resolve } from 'node:path';
import type { KeyObject } from 'node:crypto';
import {
  checkRunLog,
  checkRunSignature,
  readPublicKey,
  type RunLogCheck,
  type SignatureCheck,
} from '../pipeline/index.js';
import { describeRunLogCheck } from './verify-runs.js';
import { defineCommand, runAsEntryPoint, type CommandIo, type CommandLine } from '#core/command.js';

const USAGE = `usage: pnpm verify-run <run-dir> [<run-dir>...] [--pubkey <file>] [--json]
  checks every JSONL file of each run: each line carries the sha256 of the line before it (the first line is
  bound to the run id and the file name), and each file ends at the head manifest.json recorded when eval last
  started or ended. Names the first bad line: edited, deleted, reordered, inserted, truncated or appended later.
  The manifest's spec and summary.json are bound too (their sha256 in manifest.json's bound): an edit of either
  fails, naming the file; a run written before that is said to be unbound.
  The chain is unkeyed: it catches edits, not a forger who recomputes every hash and the manifest. For that:
  --pubkey <file>  the Ed25519 public key (pnpm keygen) of the pnpm eval --sign-key that signed the run: fails a
                   run whose signature.json is missing, signed by another key, or does not verify (altered,
                   forged, or the run changed since it was signed)
  --json           one JSON verdict per run (state, status, problems, files, unbound, signature)
exit codes: 0 intact (and, with --pubkey, signed) · 1 broken, unverifiable (written before the chain), a
            signature missing or not verifying, not a run, or usage ·
            2 unfinished: status started (a crash, a kill, or still running); the chain holds, but lines after the
              recorded heads are not anchored yet (resume with the command that made it)`;

const SEVERITY: Record<RunLogCheck['state'], 0 | 1 | 2> = {
  intact: 0,
  unfinished: 2,
  broken: 1,
  unverifiable: 1,
  'not-a-run': 1,
};

const OPTIONS = { json: { type: 'boolean' }, pubkey: { type: 'string' } } as const;

/** Entry point; returns the exit code. Reads run directories only. */
export const main = defineCommand({ usage: USAGE, options: OPTIONS, allowPositionals: true, run: verifyRuns });

function verifyRuns(parsed: CommandLine<typeof OPTIONS>, { out, err, usageError }: CommandIo): number {
  if (parsed.positionals.length === 0) return usageError();
  const publicKey: KeyObject | null = parsed.values.pubkey === undefined ? null : readPublicKey(parsed.values.pubkey);
  const checks = parsed.positionals.map((dir) => checkRunLog(resolve(dir)));
  // With --pubkey every run directory must carry a signature of that key over its files as they are.
  const signatures: (SignatureCheck | null)[] = checks.map((check) =>
    publicKey === null || check.state === 'not-a-run' ? null : checkRunSignature(check.runDir, publicKey),
  );
  if (parsed.values.json)
    out(
      JSON.stringify(
        checks.map(({ scanned: _scanned, ...check }, i) => ({
          ...check,
          ...(publicKey ? { signature: signatures[i] } : {}),
        })),
        null,
        2,
      ),
    );
  else
    for (const [i, check] of checks.entries()) {
      (check.state === 'intact' ? out : err)(describeRunLogCheck(check));
      const signature = signatures[i];
      if (signature)
        signature.ok
          ? out(
              `signed: ${check.runDir}: the signature verifies (${signature.fingerprint}, signed ${signature.signedAt})`,
            )
          : err(`FAILED: ${check.runDir}: ${signature.message}`);
    }
  const codes = checks.map((check, i) => (signatures[i]?.ok === false ? 1 : SEVERITY[check.state]));
  return codes.includes(1) ? 1 : codes.includes(2) ? 2 : 0;
}

runAsEntryPoint(import.meta.url, main);
