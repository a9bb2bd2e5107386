"""Schedules, post-run triggers and the serve entry point for Prefect deployments."""
