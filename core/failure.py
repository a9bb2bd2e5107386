"""A model step's failure, as the pipelines pass it on: the call could not be made, or its answer never
validated, so that step's outcome is "could not be vetted/planned/written" and the core keeps what was
there (spec: fail closed for free-form capture, open for a person's correction, originals kept by a tidy-up).

A module of its own: every step and flow needs it, and none of them needs the tidy-up's state with it."""

from __future__ import annotations

from pydantic import BaseModel


class Failure(BaseModel):
    """A helper call that failed for good (retries spent or an answer that never validated)."""

    operation: str
    message: str
