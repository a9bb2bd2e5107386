"""core/lazy_regex.py: a pattern compiled on first use, behaving as the compiled one."""

from __future__ import annotations

import re

from agentuse.core.lazy_regex import lazy


def test_a_lazy_pattern_compiles_once_on_first_use_and_behaves_as_compiled():
    pattern = lazy(r"(?i)bearer\s+(\w+)")
    assert pattern._compiled is None
    assert pattern.sub(r"<\1>", "Bearer abc and bearer def") == "<abc> and <def>"
    compiled = pattern.compiled()
    assert compiled is pattern.compiled() and compiled.flags & re.IGNORECASE
    assert pattern.search("x BEARER y").group(1) == "y"
    assert pattern.pattern == r"(?i)bearer\s+(\w+)"


def test_a_lazy_pattern_copies_and_pickles_as_itself():
    import copy
    import pickle

    pattern = lazy(r"a+b", re.I)
    for twin in (copy.copy(pattern), copy.deepcopy(pattern), pickle.loads(pickle.dumps(pattern))):
        assert twin.sub("x", "AAB ab") == "x x"
