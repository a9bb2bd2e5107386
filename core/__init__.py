"""The domain: agent files, learnings store, ranking, capture/tidy logic. Never imports prefect."""
