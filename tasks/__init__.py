"""Prefect tasks: one thin wrapper per pipeline step of core."""
