"""CONTINUUM (PyPI continuum-agent) behind the stalebench store driver: one run's hash-chained event log per context.

Seeded with SQLiteStorage.create_run_started() and append_event(FINDING_ADDED, {finding_id, claim, ...}) (the
record's text is the finding's claim, so the projected state carries it). The read path is project() over
read_events(), which rebuilds the agent's state after a restart; the served texts are the projected findings'
claims. The audit is verify_events(). config {"signed": true} also signs each run's head after every write with
the package's own `continuum attest` command (Ed25519, sign_chain) into <cell>/attest/<run>.json, with the private
key in <cell>/keys/signer.pem, both outside store/; the audit is then `continuum attest-verify --json`: signature
valid, live head sequence and hash equal to the signed point, chain intact (verify_events).
"""

import io
import json
import os
import sqlite3

RUNS = {"A": "run-a", "B": "run-b"}
STORE_FILE = os.path.join("store", "continuum.db")


def describe(config):
    import importlib.metadata

    import continuum  # noqa: F401  (ImportError here means: not installed)

    signed = bool(config.get("signed"))
    if signed:
        import cryptography  # noqa: F401  (the attest extra)
    version = importlib.metadata.version("continuum-agent")
    return {
        "label": f"CONTINUUM event log {version}, hash chain{' plus Ed25519-signed head' if signed else ''}",
        "versions": {"continuum-agent": version, **({"cryptography": importlib.metadata.version("cryptography")} if signed else {})},
        "store": f"SQLite {sqlite3.sqlite_version} (WAL), events table, one run per context: store/continuum.db",
        "config": {
            "chain": "SHA-256 over each event's content and its predecessor's hash (keyless, always on)",
            "signed head": "on: `continuum attest` after every write, Ed25519 key and attestation in <cell>/keys and <cell>/attest, outside the store" if signed else "off",
            "read path": "project(run_id, read_events(run_id)): the projected findings' claims",
            "audit": "`continuum attest-verify --json` (signature, signed sequence and hash, verify_events)" if signed else "verify_events(run_id)",
        },
        "detection": "audit",
        "audit": True,
        "revocation_fields": [],
        "raw_files": [STORE_FILE],
        "owners": RUNS,
    }


def _cli(argv):
    """Runs the continuum CLI in-process; returns (exit code, stdout, stderr)."""
    from continuum.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, err=err)
    return int(code), out.getvalue(), err.getvalue()


class Store:
    def __init__(self, directory, config):
        from continuum.storage.sqlite import SQLiteStorage

        self.directory = directory
        self.signed = bool(config.get("signed"))
        os.makedirs(os.path.join(directory, "store"), exist_ok=True)
        self.db = os.path.join(directory, STORE_FILE)
        self.storage = SQLiteStorage(self.db)
        self.key = os.path.join(directory, "keys", "signer.pem")
        if self.signed and not os.path.exists(self.key):
            os.makedirs(os.path.dirname(self.key), exist_ok=True)
            code, out, err = _cli(["attest-keygen", "--out", self.key])
            if code != 0:
                raise RuntimeError(f"continuum attest-keygen failed: {err or out}")

    def _attestation(self, context):
        return os.path.join(self.directory, "attest", f"{RUNS[context]}.json")

    def seed(self, context, records):
        from continuum.events import EventType
        from continuum.models import Run
        from continuum.storage.base import RunNotFound

        run_id = RUNS[context]
        try:
            self.storage.get_run(run_id)
        except RunNotFound:
            self.storage.create_run_started(Run(run_id=run_id, goal=f"remember context {context}"))
        ids = []
        for record in records:
            index = self.storage.last_sequence(run_id)
            labels = record.get("labels") or {}
            payload = {"finding_id": f"{run_id}-f{index}", "claim": record["text"], "evidence": [f"source:{labels['source']}"] if "source" in labels else []}
            ids.append(self.storage.append_event(run_id, EventType.FINDING_ADDED, payload).event_id)
        if self.signed:
            os.makedirs(os.path.dirname(self._attestation(context)), exist_ok=True)
            code, out, err = _cli(["--db", self.db, "attest", run_id, "--key", self.key, "--signer", "stalebench", "--out", self._attestation(context)])
            if code != 0:
                raise RuntimeError(f"continuum attest failed: {err or out}")
        return ids

    def read(self, context):
        from continuum.state.semantic import project

        run_id = RUNS[context]
        state = project(run_id, self.storage.read_events(run_id))
        return {"status": "served", "texts": [finding.claim for finding in state.findings]}

    def audit(self, context):
        run_id = RUNS[context]
        if self.signed:
            code, out, err = _cli(["--db", self.db, "--json", "attest-verify", run_id, "--attest", self._attestation(context)])
            if code == 0:
                return {"ok": True}
            try:
                verdict = json.loads(out)
            except ValueError:
                return {"ok": False, "reason": f"attest-verify exited {code}: {(err or out).strip()}"}
            return {"ok": False, "reason": f"attest-verify: {json.dumps(verdict, sort_keys=True)}"}
        report = self.storage.verify_events(run_id)
        if report.ok:
            return {"ok": True}
        shown = "; ".join(f"seq {v.sequence}: {v.kind} ({v.detail})" for v in report.violations[:6])
        return {"ok": False, "reason": f"verify_events: {len(report.violations)} violation(s): {shown}"}

    def raw_paths(self):
        return {"store": STORE_FILE, "store_dir": "store"}

    def close(self):
        self.storage.close()


def open_store(directory, config):
    return Store(directory, config)
