"""What a token directory's manifest says a newcomer should know before training on it: a tokenizer
trained on too little text, and a val split with nothing to evaluate on. Warnings only: the thresholds
([tokenize] min_train_bytes) change no output byte and no config hash."""

from __future__ import annotations

from corpus.config import Config


def tokens_warnings(manifest: dict, config: Config) -> list[str]:
    """One line per problem of the tokens `manifest` under `config`'s thresholds ([] when none)."""
    out = []
    trained_on = manifest["tokenizer"].get("trained_on_bytes")  # absent: a pinned tokenizer (or an older manifest)
    least = config["tokenize"]["min_train_bytes"]
    if trained_on is not None and trained_on < least:
        out.append(f"the tokenizer was trained on {trained_on:,} bytes of text, fewer than [tokenize] "
                   f"min_train_bytes = {least:,}: its {manifest['tokenizer']['vocab_size']:,} tokens are mostly "
                   f"this corpus's own words (add data, pin a tokenizer with [tokenize] tokenizer, or lower vocab_size)")
    if manifest["splits"]["val"]["docs"] == 0:
        out.append(f"the val split is empty ([shard] val_permille = {config['shard']['val_permille']} per mille "
                   f"gave no document): nothing to evaluate on; raise val_permille, or add data")
    return out
