"""The stale-retrieval guard as ../shared/spec/stale-retrieval.md section 10 specifies it, written for `pnpm bench`.

Written from the spec's rules (10.2-10.9), not from the reference code: the bench times it beside the TypeScript
guard on the same inputs and checks that both return the same verdicts. Standard library only.

Usage: python3 guard_spec.py INPUT.json  (INPUT: {"now": ISO, "groups": [[retrieval, ...], ...]}, a retrieval being
a list of records). Prints one JSON object: the verdict of every retrieval, and the microseconds per retrieval of
each group (timed inside this process, every group's texts new to it).
"""

import json
import math
import re
import sys
import time
from datetime import datetime, timezone

SUBJECT_OVERLAP = 0.45
MAX_WITHHELD_RATIO = 0.6

TEXT_FIELDS = ("fact", "text", "content", "memory", "body")
REVOCATION_FIELDS = (
    "expired_at", "invalid_at", "valid_to", "deleted_at", "revoked_at", "expiration_date", "invalidated_at",
)
TIME_FIELDS = ("valid_at", "updated_at", "created_at", "timestamp", "ts")
STOP = set(
    "this that with from they have been were which their there when what shall will into over under than then "
    "only also must may can are is the and for any all per policy standard procedure runbook states state "
    "approved current issued requires require required governs".split()
)
ANTONYMS = [
    ("never", "may"), ("never", "permitted"), ("never", "allowed"), ("never", "can"), ("must", "never"),
    ("prohibited", "permitted"), ("prohibited", "allowed"), ("denied", "granted"), ("deny", "grant"),
    ("denied", "allowed"), ("block", "monitor"), ("blocked", "monitored"), ("blocked", "allowed"),
    ("delete", "retain"), ("deleted", "retained"), ("delete", "keep"), ("immediately", "first"),
    ("automatically", "approval"), ("waived", "required"), ("waiver", "required"), ("skip", "required"),
    ("single", "dual"), ("one", "two"), ("without", "requires"), ("disclose", "refuse"), ("export", "internal"),
    ("rollback", "investigate"),
]
CUES = ("never", "not", "no ", "without", "prohibit", "forbid", "must not", "may not", "cannot")
WORD = re.compile(r"[a-z0-9$]+")
QUANTITY = re.compile(r"\$?\d[\d,]*")


def text_of(record):
    """10.2: the string, else the first non-empty string text field, else str(record)."""
    if isinstance(record, str):
        return record
    if isinstance(record, dict):
        for name in TEXT_FIELDS:
            value = record.get(name)
            if isinstance(value, str) and value != "":
                return value
    return str(record)


def field(record, name):
    """10.3: a field's value when present (neither None nor ''), else None."""
    if not isinstance(record, dict):
        return None
    value = record.get(name)
    return None if value is None or value == "" else value


def parse_iso(value):
    """An ISO date or datetime; no timezone means UTC (the port's documented deviation, 10.11.7)."""
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def revoked_by(record, now):
    """10.4: the first present revocation field; a future expiration_date is skipped, an unparseable one revokes."""
    for name in REVOCATION_FIELDS:
        value = field(record, name)
        if value is None:
            continue
        if name == "expiration_date":
            try:
                if parse_iso(value) > now:
                    continue
            except (ValueError, TypeError):
                pass
        return name
    return None


def tau(record):
    """10.5: the first present time field as epoch seconds, or None (numbers and unparseable strings)."""
    for name in TIME_FIELDS:
        value = field(record, name)
        if value is None:
            continue
        if isinstance(value, (int, float)):
            return None
        try:
            return parse_iso(value).timestamp()
        except (ValueError, TypeError):
            return None
    return None


def stem(word):
    for suffix in ("ies", "ing", "ed", "es", "s"):
        if len(word) > 4 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def words(text):
    """10.6 W(x)."""
    return {stem(w) for w in WORD.findall(text.lower()) if len(w) > 2 and w not in STOP}


def negations(lower):
    return sum(lower.count(cue) for cue in CUES)


def conflict(a, b):
    """10.7 conflict(a, b) -> (hit, reason)."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return False, ""
    ctm = len(wa & wb) / min(len(wa), len(wb))
    if ctm < SUBJECT_OVERLAP:
        return False, ""
    la, lb = a.lower(), b.lower()
    for u, w in ANTONYMS:
        if (u in la and w in lb) or (w in la and u in lb):
            return True, f'opposing terms "{u}"/"{w}" (subject overlap {ctm:.2f})'
    qa, qb = set(QUANTITY.findall(la)), set(QUANTITY.findall(lb))
    if qa and qb and not (qa & qb):
        return True, f"conflicting quantities {sorted(qa)} vs {sorted(qb)}"
    if abs(negations(la) - negations(lb)) >= 1 and ctm >= 0.45:
        return True, f"polarity mismatch (subject overlap {ctm:.2f})"
    return False, ""


def guard(records, now):
    """10.4, 10.8, 10.9: the verdict on one retrieval."""
    withheld, notes, survivors = [], [], []
    for index, record in enumerate(records):
        marked = revoked_by(record, now)
        if marked:
            withheld.append({"index": index, "text": text_of(record), "reason": f"backend marked {marked}",
                             "stage": "explicit"})
        else:
            survivors.append((index, record, tau(record)))
    order = sorted(survivors, key=lambda s: (s[2] is None, -(s[2] or 0)))
    cap = math.floor(len(records) * MAX_WITHHELD_RATIO)
    kept = []
    for index, record, t in order:
        text = text_of(record)
        superseding = None
        for _, other, tk in kept:
            hit, why = conflict(text, text_of(other))
            if not hit:
                continue
            if t is not None and tk is not None and t < tk:
                superseding = (why, text_of(other))
            else:
                notes.append(f"unresolved conflict ({why}); both facts kept because the backend supplied no usable "
                             "timestamp to order them")
            break
        if superseding and len(withheld) < cap:
            withheld.append({"index": index, "text": text, "reason": f"superseded: {superseding[0]}",
                             "stage": "conflict", "supersededBy": superseding[1]})
        else:
            kept.append((index, record, t))
    if withheld:
        notes.append(f"{len(withheld)} of {len(records)} retrieved facts withheld as superseded or revoked; they "
                     "remain in the store and are listed in `withheld`.")
    return {"kept": sorted(i for i, _, _ in kept), "withheld": withheld, "notes": notes}


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        data = json.load(handle)
    now = parse_iso(data["now"])
    verdicts, micros, cpu_micros = [], [], []
    for group in data["groups"]:
        start, cpu_start = time.perf_counter_ns(), time.process_time_ns()
        results = [guard(records, now) for records in group]
        cpu_micros.append((time.process_time_ns() - cpu_start) / 1000 / max(len(group), 1))
        micros.append((time.perf_counter_ns() - start) / 1000 / max(len(group), 1))
        verdicts.extend(results)
    json.dump({"python": sys.version.split()[0], "microsPerRetrieval": micros, "cpuMicrosPerRetrieval": cpu_micros,
               "verdicts": verdicts}, sys.stdout)


if __name__ == "__main__":
    main()
