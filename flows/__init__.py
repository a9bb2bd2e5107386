"""Prefect flows: the only place pipeline steps are composed."""
