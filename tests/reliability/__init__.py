"""The reliability suite: load, crashes, model faults, bad input and tidy's "nothing may vanish"."""
