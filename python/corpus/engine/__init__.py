"""The engine: the one runner every stage goes through (plan, decide "current", run phases, publish), the
executors (local pool, Ray), pool start-up, partitioning of global steps, and reading what an
earlier stage published. It knows nothing about any particular stage."""
