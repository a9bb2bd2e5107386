"""Running an agent: model loop, tools, sessions, approval gates."""
