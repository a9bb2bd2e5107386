"""Markdown text <-> learning records, following the spec's "Storage Format" to the letter.

    # Learnings for <name>
    <!-- agent: <agent path relative to the project root> -->

    ### [category] title
    <!-- id:a1b2c3d4 | confidence:0.92 | injected:3 | src:auto | ... | 2026-01-27 -->
    <!-- why: ... -->          (optional)
    <!-- evidence: ... -->     (optional)
    body lines

The one place callers import the format from. Its parts, each a module named for its concept, lower ones
first: store_escape (rule text escaped where it could pass for structure), store_doc (the doc, its error,
ids, the list a parse returns), store_meta (the metadata comment, read and written), store_read (`parse`),
store_write (`render`), store_verbatim (counting in place in a text known to be render's).
"""

from __future__ import annotations

from agentuse.core.learning import one_line
from agentuse.core.store_doc import RETIRED_SECTION, ParsedRules, StoreDoc, StoreFormatError, new_id
from agentuse.core.store_escape import escape_inline, unescape_inline
from agentuse.core.store_read import parse
from agentuse.core.store_verbatim import Verbatim, bump, verbatim
from agentuse.core.store_write import render, render_entry

__all__ = ["RETIRED_SECTION", "ParsedRules", "StoreDoc", "StoreFormatError", "Verbatim", "bump", "escape_inline",
           "new_id", "one_line", "parse", "render", "render_entry", "unescape_inline", "verbatim"]
