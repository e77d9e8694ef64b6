"""The tokenizer directory as Hugging Face `transformers` loads it, and the placeholders as ordinary tokens.

`AutoTokenizer.from_pretrained(dir)` reads `tokenizer.json` for the model but takes the roles of tokens
(eos, bos, pad, unk) from `tokenizer_config.json` / `special_tokens_map.json`; without them it loads with
`eos_token = None`. `hf_files` writes both from the tokenizer.json itself, claiming the EOS and nothing else
(no bos, pad or unk: the stage never adds them).

The PII placeholders `<EMAIL> <PHONE> <CARD> <IP> <KEY>` are added tokens, so each encodes to exactly one
id, but not *special* ones: `decode(ids, skip_special_tokens=True)` keeps them, the way the shard text has
them ("Reach me at <EMAIL>." rather than "Reach me at ."). The BPE trainer gets them in `special_tokens`
(they keep their ids 1..5 and the vocabulary size stays the same); `unmark_special` then sets
`"special": false` on them in the tokenizer.json. Encoding is unchanged: added tokens are split out before
pre-tokenization whether special or not.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from corpus.store.atomic import dump_json, sha256_bytes, write_bytes

CONFIG_FILE = "tokenizer_config.json"
SPECIAL_MAP_FILE = "special_tokens_map.json"


def _tokenizer(data: bytes):
    from tokenizers import Tokenizer

    return Tokenizer.from_str(data.decode("utf-8"))


def unmark_special(data: bytes, tokens: Iterable[str]) -> bytes:
    """tokenizer.json bytes with `"special": false` on the added tokens named in `tokens` (ids unchanged).

    The result is re-serialised by `tokenizers` itself, so it is the library's canonical form."""
    names = set(tokens)
    doc = json.loads(data)
    found = set()
    for t in doc.get("added_tokens", []):
        if t["content"] in names:
            t["special"] = False
            found.add(t["content"])
    missing = names - found
    if missing:
        raise ValueError(f"tokenizer.json has no added token {sorted(missing)[0]!r}")
    return _tokenizer(json.dumps(doc, ensure_ascii=False).encode("utf-8")).to_str().encode("utf-8")


def added_tokens(data: bytes) -> list[dict]:
    """The tokenizer.json's added tokens (id, content, special, ...) in id order."""
    return sorted(json.loads(data).get("added_tokens", []), key=lambda t: t["id"])


def token_roles(data: bytes, eos: str, placeholders: Iterable[str]) -> dict:
    """{"special_tokens": {content: id} of the added tokens marked special, "placeholder_tokens": {content: id}
    of the placeholders the tokenizer has as added tokens} (a pinned tokenizer may have none of them)."""
    tokens = added_tokens(data)
    by_content = {t["content"]: t for t in tokens}
    return {"special_tokens": {t["content"]: t["id"] for t in tokens if t.get("special")},
            "placeholder_tokens": {p: by_content[p]["id"] for p in placeholders if p in by_content}}


def hf_files(data: bytes, eos: str) -> dict[str, bytes]:
    """{file name: bytes} of tokenizer_config.json and special_tokens_map.json for this tokenizer.json.

    Only `eos_token` is claimed. `added_tokens_decoder` mirrors tokenizer.json's added tokens (with their
    `special` flags), as transformers itself writes it, so every loader sees the same roles."""
    tokens = added_tokens(data)  # the EOS is checked to be in the vocabulary by the stage (tokenizer_facts)
    decoder = {str(t["id"]): {k: t[k] for k in ("content", "lstrip", "normalized", "rstrip", "single_word", "special")}
               for t in tokens}
    config = {
        "added_tokens_decoder": decoder,
        "bos_token": None,
        "clean_up_tokenization_spaces": False,
        "eos_token": eos,
        "extra_special_tokens": {},
        "model_max_length": 1_000_000_000_000_000_019_884_624_838_656,  # transformers' "no limit" value
        "pad_token": None,
        "tokenizer_class": "PreTrainedTokenizerFast",
        "unk_token": None,
    }
    return {CONFIG_FILE: dump_json(config), SPECIAL_MAP_FILE: dump_json({"eos_token": eos})}


def write_hf_files(directory: str | os.PathLike, data: bytes, eos: str) -> dict[str, str]:
    """Write hf_files() beside tokenizer.json in `directory`; returns {file name: sha256} for the manifest."""
    out = {}
    for name, content in hf_files(data, eos).items():
        write_bytes(Path(directory) / name, content)
        out[name] = sha256_bytes(content)
    return out
