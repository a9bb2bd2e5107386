"""How often two labelled rules share no term: the evidence for the gate's check in code (core/gate.py
`lost_in_code`, core/remember.py `about`) that a wording sharing no term with a person's rule does not
carry it, and that a note sharing none with a rule does not correct it.

Reads every labelled set in tests/data but frozen 7, which is held out until its round is over
(benchmarks/offline_eval.py). The test has no parameter: nothing here was tuned on these sets. Prints, per
label, the pairs and the share whose two rules share no term under the offline reading (stems, synonyms
and compounds matched as `core/helper/overlap.py` matches them).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path

from agentuse.core.helper.offline_text import shares_a_term

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
HELD_OUT = {"rule_pairs_frozen7.jsonl"}


def main() -> None:
    pairs, apart = Counter(), Counter()
    files = sorted(f for f in DATA.glob("rule_pairs*.jsonl") if f.name not in HELD_OUT)
    for path in files:
        for line in path.read_text().splitlines():
            if line.strip():
                pair = json.loads(line)
                pairs[pair["label"]] += 1
                apart[pair["label"]] += not shares_a_term(pair["a"], pair["b"])
    print(f"nproc: {os.cpu_count()}")
    print(f"python: {sys.version.split()[0]}")
    print(f"sets: {len(files)}")
    for label in sorted(pairs):
        print(f"{label}: {apart[label]} of {pairs[label]} share no term ({apart[label] / pairs[label]:.1%})")


if __name__ == "__main__":
    main()
