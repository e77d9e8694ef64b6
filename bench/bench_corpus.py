"""Build the end-to-end bench corpus (issue 31): one JSONL.zst of >= 50 MB of real text, seeded.

    CORPUS_MIRROR=../shared/data/mirror .venv/bin/python bench/bench_corpus.py [--mb 55] [--seed 0]
        [--sub 0.3] [--out bench/data/bench-corpus-55mb-s0.jsonl.zst]

    make bench ARGS="--corpus bench/data/bench-corpus-55mb-s0.jsonl.zst"

The documents of every corpus source of the demo ledger that is neither an eval set nor a perplexity
reference of the demo config (stories, Wikipedia, speeches, forum text, UDHR in ~388 languages, Genesis
translations, news, PII sentences, enterprise PII records, GSM8K problems, the lingua sentences in 15
languages), each read as `corpus fetch` reads it. Consecutive short documents of a source are joined with a
newline until one holds MIN_WORDS words (headlines, forum lines and sentences become page-like documents
that get real work from every filter). Copy 0 is that text; every further copy replaces each word with
probability --sub by a word drawn from the source's own word frequencies (bench/scale.py's Substituter,
numpy PCG64 seeded by --seed, the copy and the source), so copies are neither exact nor near-duplicates and
keep their language. Each copy of all sources is shuffled (seeded) and written until --mb MB of UTF-8 text
(the "text" fields, not the JSON) are written. The same arguments give the same bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tomllib
from pathlib import Path

import numpy as np
import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BENCH, REPO, jsonl_line, ledger_rows, mirror_dir, sha256_of  # noqa: E402
from scale import Substituter, page_documents  # noqa: E402

WORD = re.compile(r"\w+")  # what counts as a word when short documents are joined to scale.MIN_WORDS


def corpus_sources(config: Path = REPO / "configs" / "demo.toml") -> list[str]:
    """Every corpus source of the demo ledger that the demo config does not use as an eval set or as a
    perplexity reference (those must stay unseen), in ledger order."""
    cfg = tomllib.loads(config.read_text())
    held = set(cfg.get("decontam", {}).get("evals", [])) | set(cfg.get("filters", {}).get("ppl", {}).get("reference", []))
    rows = ledger_rows()
    return [sid for sid, r in rows.items()
            if r.get("role") == "corpus" and r.get("format") in ("text", "json", "jsonl") and sid not in held]


def build(out: Path, mb: float, seed: int, sub: float) -> dict:
    mirror = mirror_dir()
    sources = corpus_sources()
    docs = {sid: page_documents(mirror, sid, WORD) for sid in sources}
    subs = {sid: Substituter(d, sub) for sid, d in docs.items()}
    rng = np.random.Generator(np.random.PCG64([seed, 31]))
    target, text_bytes, n, c = int(mb * 1e6), 0, 0, 0
    per_source: dict[str, int] = dict.fromkeys(sources, 0)
    tmp = out.with_name(out.name + ".tmp")
    with open(tmp, "wb") as f, zstandard.ZstdCompressor(level=3).stream_writer(f) as z:
        while text_bytes < target:
            batch = []
            for i, sid in enumerate(sources):
                texts = docs[sid] if c == 0 else subs[sid].copy(
                    docs[sid], np.random.Generator(np.random.PCG64([seed, c, i])))
                batch += [(sid, t) for t in texts]
            for j in rng.permutation(len(batch)):
                sid, text = batch[j]
                z.write(jsonl_line(text))
                text_bytes += len(text.encode())
                per_source[sid] += 1
                n += 1
                if text_bytes >= target:
                    break
            c += 1
    os.replace(tmp, out)
    return {"path": str(out), "sha256": sha256_of(out), "file_bytes": out.stat().st_size, "documents": n,
            "text_bytes": text_bytes, "copies": c, "seed": seed, "sub": sub, "documents_by_source": per_source}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=55.0, help="MB of UTF-8 text to write (default 55)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the substitutions and the shuffles (default 0)")
    ap.add_argument("--sub", type=float, default=0.3, help="word substitution probability of copies 1.. (default 0.3)")
    ap.add_argument("--out", type=Path, default=None,
                    help="output .jsonl.zst (default bench/data/bench-corpus-<mb>mb-s<seed>.jsonl.zst, git-ignored)")
    args = ap.parse_args(argv)
    out = args.out or BENCH / "data" / f"bench-corpus-{args.mb:g}mb-s{args.seed}.jsonl.zst"
    out.parent.mkdir(parents=True, exist_ok=True)
    info = build(out, args.mb, args.seed, args.sub)
    print(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
