"""The user's commands: the `corpus` CLI and its launcher, `corpus run`, audit, why, rejects, export,
ledger operations and the golden run. The top layer: nothing in corpus imports it."""
