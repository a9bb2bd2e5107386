"""The Prefect flow object of every pipeline, importable by name (flows/runner.py `FLOWS_MODULE`).

A deployment's flow runs in a process that imports its flow from its entrypoint; the pipelines are plain
declarations (no prefect at import), so their flows are built here, once, from the same declarations the
CLI's `--prefect` runs use."""

from __future__ import annotations

from agentuse.flows.capture import capture_flow
from agentuse.flows.project_tidy import project_tidy_flow
from agentuse.flows.remember import remember_flow
from agentuse.flows.restore import restore_flow
from agentuse.flows.tidy import tidy_flow

capture = capture_flow.prefect_flow()
project_tidy = project_tidy_flow.prefect_flow()
remember = remember_flow.prefect_flow()
restore = restore_flow.prefect_flow()
tidy = tidy_flow.prefect_flow()
