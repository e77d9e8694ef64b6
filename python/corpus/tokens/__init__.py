"""Tokens: what the tokenize stage computes (BPE training, encoding, the shuffle buckets and plan, the mix,
the parts), as plain functions and the units its phases send to workers, and what reads token directories
(exports, transformers files, checks, the loader). Nothing here imports engine/ or stages/."""
