"""Policy scenarios straight through inspeximus, with no stalebench code in between: the reference the adapter's
results are checked against (backends/test-support/inspeximus-reference.ts). Reads a job from stdin, prints results.

Each case is written as its configuration says (inspeximus: no key; inspeximus-keyed / -hist: v1 then v2 under one
key, or the library's regex_extractor on natural episodes), then read twice: the configuration's default recall and
the filtered one (include_superseded=False, suppress_stale_values=True).
"""

import json
import os
import sys
import tempfile

from inspeximus import Inspeximus, regex_extractor

DAY = 86400


def run(case, now, directory):
    memory = Inspeximus(os.path.join(tempfile.mkdtemp(dir=directory), "memory.db"))
    keyed = case["config"] != "inspeximus"
    if case["mode"] == "direct":
        key = case["namespace"] + "::policy" if keyed else None
        memory.remember(case["v1"], key=key, valid_from=now - 90 * DAY)
        memory.remember(case["v2"], key=key, valid_from=now)
        for distractor in case["distractors"]:
            memory.remember(distractor, valid_from=now)
    else:
        memory.extractor = regex_extractor if keyed else None
        for episode in case["episodes"]:
            memory.remember(episode["text"], valid_from=episode["t"])
        memory.extractor = None
    default = memory.recall(case["query"], k=case["k"], include_superseded=case["config"] == "inspeximus-hist")
    filtered = memory.recall(case["query"], k=case["k"], include_superseded=False, suppress_stale_values=True)
    return {
        "default": [record["text"] for record in default],
        "superseded": [record["text"] for record in default if record.get("superseded")],
        "filtered": [record["text"] for record in filtered],
        "keys": sorted({record.get("key") for record in memory.items if record.get("key")}),
    }


def main():
    job = json.load(sys.stdin)
    print(json.dumps([run(case, job["now"], job["dir"]) for case in job["cases"]]))


if __name__ == "__main__":
    main()
