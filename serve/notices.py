"""The Learnings tab's notices as prose, in words that agree with what the last action said.

The CLI's outside-the-cap lines promise that "the next capture or tidy retires" auto-extracted rules left
outside the cap. Right after a tidy-up that ended still over the cap, with nothing changed since, that
promise is false: the tidy-up already said how far it could go. The notice then repeats the tidy-up's own
heading ("that is as far as tidying up can take it", or why pressing again would get further) instead.
"""

from __future__ import annotations

from agentuse.core.describe import Report
from agentuse.core.status_text import AUTO_OUTSIDE_CAP, auto_outside_cap_lines, human_outside_cap_lines, outside_cap_counts
from agentuse.serve.project import LastTidy


def outside_cap(report: Report, agent_key: str, last: LastTidy | None, jobs) -> list[str]:
    """Paragraphs: the corrections that do not reach the agent (with the command), then the auto rules."""
    paragraphs = []
    human = human_outside_cap_lines(report, agent_key)
    if human:
        paragraphs += [" ".join(human[:-1]), human[-1]]
    _, autos = outside_cap_counts(report)
    if not autos:
        return paragraphs
    current = last is not None and last.headline == "Tidied up" and last.undoable  # nothing changed since
    if not current:
        return paragraphs + auto_outside_cap_lines(report)
    job = jobs.for_snapshot(last.folder)
    over = job.result.overcap if job is not None and job.result is not None else None
    head = AUTO_OUTSIDE_CAP.format(n=autos, cap=report.cap) + "."
    if over is not None and over.further:  # the tidy-up's own word: pressing again gets further
        return paragraphs + [f"{head} {over.further}"]
    if over is not None:
        return paragraphs + [f"{head} The tidy-up {last.ago} ended {over.over} over the cap, and that is as far as "
                             "tidying up can take it; its result says why each one stays."]
    return paragraphs + [f"{head} The tidy-up {last.ago} left them there and nothing has changed since, so "
                         "tidying up again would not retire them; its result says why each one stays."]
