"""corpus: a staged, auditable, deterministic pipeline that prepares LLM pretraining data."""

__version__ = "0.1.0"
