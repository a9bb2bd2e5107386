"""`agentuse serve`: the local web UI over one project's agents, learnings, sessions and tidy-ups.

Server-rendered (Starlette + Jinja2, autoescaped), one small script for the tidy progress page, no Node
build. Import `create_app` from `agentuse.serve.app`; the CLI imports it only inside `agentuse serve`.
"""
