"""Dedup building blocks: shingles, MinHash signatures, LSH bands, union-find, n-gram decontamination."""
