"""The agentuse command line (typer). Heavy imports stay inside the commands that need them."""
