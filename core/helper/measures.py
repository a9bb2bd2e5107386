"""What a value's unit already says: "4 degrees C" is a temperature and "300 dpi" a resolution, so a rule
that names the measure ("hold the temperature at 4 degrees C") says nothing the other ("keep them at 4
degrees Celsius") does not. The offline evaluator drops such a word from the leftovers when both rules set
the same values and only one names a measure (two measures named, "height" / "width", are two settings).
"""

from __future__ import annotations

from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.vocabulary import canon

# Nouns that name what a number with a unit measures. Domain-general English.
MEASURES = frozenset(canon(w) for w in """
temperature resolution length width height depth weight speed duration distance
""".split())


def without_implied_measures(o: Overlap) -> Overlap:
    """`o` without the measure one side names and the other leaves to the unit; `o` itself otherwise.
    For rules whose values are the same (the caller checks)."""
    named_a = [t for t in o.left_a if t.word in MEASURES]
    named_b = [t for t in o.left_b if t.word in MEASURES]
    if bool(named_a) == bool(named_b):
        return o
    return Overlap(shared=o.shared, left_a=[t for t in o.left_a if t.word not in MEASURES],
                   left_b=[t for t in o.left_b if t.word not in MEASURES])
