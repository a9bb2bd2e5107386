"""Small charts drawn on the server as inline SVG (no script, no build): one rule's outcomes on the runs it
was in force for, and an agent's rules in force against its cap, run by run. Numbers only reach the
markup as numbers; every text is escaped."""

from __future__ import annotations

from datetime import datetime, timezone

from markupsafe import Markup, escape

from agentuse.core.effectiveness import Index, RuleFigures, settled
from agentuse.core.status_text import figures_line
from agentuse.core.session_ids import id_time

BAR_WIDTH, BAR_HEIGHT = 120, 10
CHART_WIDTH, CHART_HEIGHT, PAD_LEFT, PAD_BOTTOM, PAD_TOP = 640, 170, 34, 22, 12


def outcome_bar(figures: RuleFigures) -> Markup:
    """Runs in force split by outcome: approved clean, commented, rejected, and the rest (no gate, awaiting
    review, failed). Titled with the CLI's own figures line."""
    title = escape(figures_line(figures))
    parts = [("approved", figures.approved), ("commented", figures.commented), ("rejected", figures.rejected),
             ("other", figures.no_gate + figures.pending + figures.failed)]
    shapes, x = [], 0.0
    if figures.runs == 0:
        shapes.append(f'<rect class="empty" x="0.5" y="0.5" width="{BAR_WIDTH - 1}" height="{BAR_HEIGHT - 1}" rx="2"/>')
    for kind, count in parts:
        if count:
            width = BAR_WIDTH * count / figures.runs
            shapes.append(f'<rect class="{kind}" x="{x:.1f}" y="0" width="{width:.1f}" height="{BAR_HEIGHT}"/>')
            x += width
    return Markup(f'<svg class="chart bar" role="img" width="{BAR_WIDTH}" height="{BAR_HEIGHT}" '
                  f'viewBox="0 0 {BAR_WIDTH} {BAR_HEIGHT}" data-testid="rule-chart"><title>{title}</title>'
                  + "".join(shapes) + "</svg>")


def in_force_points(index: Index) -> list[tuple[str, int]]:
    """(session id, rules in force) for the latest counted runs, oldest first (the index keeps a bounded
    series: core/effectiveness.py RECENT_RUNS), open sessions as they stand now."""
    return list(settled(index).recent)


def _day(session_id: str) -> str:
    seconds = id_time(session_id)
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%d") if seconds is not None else session_id[:8]


def in_force_chart(index: Index, cap: int) -> Markup | None:
    """Rules in force per run against the cap (dashed). None before any run was counted."""
    points = in_force_points(index)
    if not points:
        return None
    top = max(cap, *(n for _, n in points), 1)
    plot_w, plot_h = CHART_WIDTH - PAD_LEFT - 8, CHART_HEIGHT - PAD_BOTTOM - PAD_TOP
    step = plot_w / max(1, len(points) - 1)

    def y(n: int) -> float:
        return PAD_TOP + plot_h * (1 - n / top)

    coords = [(PAD_LEFT + (i * step if len(points) > 1 else plot_w / 2), y(n)) for i, (_, n) in enumerate(points)]
    line = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in coords)
    dots = "".join(f'<circle class="dot" cx="{cx:.1f}" cy="{cy:.1f}" r="3"><title>{escape(sid)}: {n} in force'
                   f'</title></circle>' for (cx, cy), (sid, n) in zip(coords, points, strict=True))
    base = CHART_HEIGHT - PAD_BOTTOM
    labels = (f'<text x="{PAD_LEFT - 6}" y="{y(top) + 4:.1f}" text-anchor="end">{top}</text>'
              f'<text x="{PAD_LEFT - 6}" y="{base + 4}" text-anchor="end">0</text>'
              f'<text x="{CHART_WIDTH - 10}" y="{y(cap) - 4:.1f}" text-anchor="end">cap {cap}</text>'
              f'<text x="{PAD_LEFT}" y="{CHART_HEIGHT - 4}">{escape(_day(points[0][0]))}</text>'
              f'<text x="{CHART_WIDTH - 8}" y="{CHART_HEIGHT - 4}" text-anchor="end">{escape(_day(points[-1][0]))}'
              f' · {len(points)} run{"" if len(points) == 1 else "s"}</text>')
    summary = escape(f"Rules in force on each of {len(points)} counted runs, against the cap of {cap}; "
                     f"the latest run had {points[-1][1]}.")
    return Markup(
        f'<svg class="chart" role="img" viewBox="0 0 {CHART_WIDTH} {CHART_HEIGHT}" width="{CHART_WIDTH}" '
        f'data-testid="in-force-chart"><title>{summary}</title>'
        f'<line class="axis" x1="{PAD_LEFT}" y1="{base}" x2="{CHART_WIDTH - 8}" y2="{base}"/>'
        f'<line class="cap" x1="{PAD_LEFT}" y1="{y(cap):.1f}" x2="{CHART_WIDTH - 8}" y2="{y(cap):.1f}"/>'
        f'<polyline class="line" points="{line}"/>{dots}{labels}</svg>')
