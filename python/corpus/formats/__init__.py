"""File formats: reading ledger sources (text, JSONL, JSON, Parquet, archives, compression), the raw
zstd JSONL parts, the Parquet parts of stages 02-05, Megatron's indexed token files, and text
normalisation. Plain readers and writers over paths and bytes; no stage logic."""
