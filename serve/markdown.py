"""Agent output as a reviewer reads it: markdown rendered by markdown-it-py, then sanitized by nh3.

Two locks, because model output is untrusted text: the renderer runs with raw HTML off (a `<script>` in
the output is shown as text), and nh3 cleans what it produced anyway, with a small tag list and only
http, https and mailto links, so nothing executable (script, event attributes, `javascript:` URLs)
reaches the page whatever a future renderer option lets through. Images are dropped: a reviewed draft
must not make the browser fetch from anywhere.
"""

from __future__ import annotations

from functools import lru_cache

import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup

TAGS = {"p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "code", "pre", "blockquote",
        "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td"}
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}
URL_SCHEMES = {"http", "https", "mailto"}


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(["table", "strikethrough"])


def render_markdown(text: str | None) -> Markup:
    """Safe HTML for `text` (empty for None)."""
    if not text:
        return Markup("")
    html = _renderer().render(text)
    return Markup(nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes=URL_SCHEMES,
                            link_rel="noopener noreferrer nofollow"))
