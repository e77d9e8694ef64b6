"""Hostile inputs, case 5: tokenize on real news with one very long word, against the same text without it.

The corpus is the Lee background news (300 articles, 59,890 words, lee-background in the ledger) as one
document, and the same with one word of --word-chars seeded random lowercase letters in the middle of the
first article (one pre-token for the byte-level pre-tokenizer; random, so no two cut pieces are alike).
Both pass the default filters. Each is built once (`corpus run --through shard`), then `corpus tokenize
--force -j 1` is timed in a fresh child, best of --repeat: the wall, interpreter start and imports
included, and the BPE training time the stage logs. With --uncapped the same is also run with the
training cap off (corpus.tokens.train.trainer_texts replaced by the identity in the child: what the
trainer was fed before the cap), each run killed after --timeout seconds.

--trainer-words N ... also times train_tokenizer alone on the news with a word of N characters (capped,
and with --uncapped also uncapped), in a child each, killed after --timeout.

    .venv/bin/python bench/tokenize_long_word.py --uncapped --trainer-words 200000 1000000
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import tempfile
from pathlib import Path

import common

# `python -c CHILD OUT.json CAPPED corpus-args...`: one `corpus` command in-process, the cap optionally off.
CHILD = r"""
import json, sys, time
out, capped, argv = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
import corpus.tokens.train as t
if not capped:
    t.trainer_texts = lambda texts, *a, **k: texts
sys.argv = ["corpus", *argv]
from corpus.commands.launch import main
rc = 0
try:
    main()
except SystemExit as e:
    rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
json.dump({"rc": rc}, open(out, "w"))
sys.exit(rc)
"""

# `python -c TRAIN_CHILD OUT.json CAPPED TEXT_FILE VOCAB`: train_tokenizer alone on one text.
TRAIN_CHILD = r"""
import json, sys, time
out, capped, path, vocab = sys.argv[1], sys.argv[2] == "1", sys.argv[3], int(sys.argv[4])
import corpus.tokens.train as t
if not capped:
    t.trainer_texts = lambda texts, *a, **k: texts
text = open(path, encoding="utf-8").read()
t0 = time.perf_counter()
t.train_tokenizer(iter([text]), vocab, "<|endoftext|>")
json.dump({"train_s": time.perf_counter() - t0}, open(out, "w"))
"""

TRAINED = re.compile(r"trained a byte-level BPE tokenizer .* in ([0-9.]+)s")


def long_word(n: int) -> str:
    rng = random.Random(5)
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))


def news_text(word_chars: int) -> str:
    row = common.ledger_rows()["lee-background"]
    news = (common.mirror_dir() / row["sha256"]).read_text(encoding="utf-8")
    if not word_chars:
        return news
    first, rest = news.split("\n", 1)
    words = first.split(" ")
    half = len(words) // 2
    return " ".join([*words[:half], long_word(word_chars), *words[half:]]) + "\n" + rest


def build(root: Path, name: str, text: str) -> Path:
    """A workspace whose one source is `text` as one document, run through shard; returns its config."""
    d = root / name
    d.mkdir(parents=True)
    src = d / "news.txt"
    src.write_text(text, encoding="utf-8")
    row = {"source_id": "news", "role": "corpus", "url": str(src), "sha256": common.sha256_of(src),
           "bytes": src.stat().st_size, "license_spdx": "LicenseRef-research-only", "format": "text", "split": "file"}
    ledger = common.write_ledger(d / "LEDGER.jsonl", [row])
    cfg = common.write_config(d / "c.toml", ledger=ledger, sources=["news"], artifacts=d / "a",
                              decontam={"evals": []}, shard={"val_permille": 0})
    r = common.measured([common.PY, "-c", CHILD, str(d / "shard.json"), "1", "--config", str(cfg), "run",
                         "--through", "shard", "-j", "1"], log=d / "log.txt", timeout=600)
    if r["rc"] != 0:
        sys.exit(f"building {name} failed: see {d / 'log.txt'}")
    return cfg


def time_tokenize(cfg: Path, capped: bool, repeat: int, timeout: float) -> dict:
    runs = []
    log = cfg.parent / f"tokenize-{'capped' if capped else 'uncapped'}.txt"
    for _ in range(repeat):
        start = log.stat().st_size if log.exists() else 0
        r = common.measured([common.PY, "-c", CHILD, str(cfg.parent / "tok.json"), "1" if capped else "0",
                             "--config", str(cfg), "tokenize", "--force", "-j", "1"], log=log, timeout=timeout)
        with open(log, "rb") as f:
            f.seek(start)
            found = TRAINED.findall(f.read().decode(errors="replace"))
        r["train_s"] = float(found[-1]) if found else None
        runs.append(r)
        if r["timed_out"] or r["rc"] != 0:
            break
    return common.best_of(runs)


def time_trainer(root: Path, chars: int, capped: bool, vocab: int, timeout: float) -> dict:
    path = root / f"trainer-{chars}.txt"
    if not path.exists():
        path.write_text(news_text(chars), encoding="utf-8")
    out = root / "train.json"
    out.unlink(missing_ok=True)
    r = common.measured([common.PY, "-c", TRAIN_CHILD, str(out), "1" if capped else "0", str(path), str(vocab)],
                        log=root / "trainer-log.txt", timeout=timeout)
    r["train_s"] = json.loads(out.read_text())["train_s"] if out.exists() else None
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--word-chars", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--uncapped", action="store_true", help="also time the stage with the training cap off")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--trainer-words", type=int, nargs="*", default=[], help="also time train_tokenizer alone")
    ap.add_argument("--vocab", type=int, default=8192, help="for --trainer-words (the stage: its default)")
    ap.add_argument("--work", type=Path, help="keep the workspaces here (default: a temporary directory)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    root = args.work or Path(tempfile.mkdtemp(prefix="tokenize-long-word-"))
    root.mkdir(parents=True, exist_ok=True)
    cases = {"without the word": news_text(0), f"with a {args.word_chars:,}-character word": news_text(args.word_chars)}
    configs = {name: build(root, f"case{i}", text) for i, (name, text) in enumerate(cases.items())}
    rows = []
    for capped in [True, False] if args.uncapped else [True]:
        for name, cfg in configs.items():
            r = time_tokenize(cfg, capped, args.repeat, args.timeout)
            rows.append({"case": name, "cap": "on" if capped else "off", **r})
    base = {row["cap"]: row["wall_s"] for row in rows if row["case"] == "without the word"}
    lines = ["# tokenize: one long word in 60k words of news", "",
             "| case | training cap | tokenize wall (s) | BPE training (s) | × without the word |", "|---|---|---|---|---|"]
    for row in rows:
        wall = f">{args.timeout:.0f} (killed)" if row["timed_out"] else f"{row['wall_s']:.2f}"
        train = "-" if row["train_s"] is None else f"{row['train_s']:.1f}"
        lines.append(f"| {row['case']} | {row['cap']} | {wall} | {train} | {row['wall_s'] / base[row['cap']]:.2f} |")
    trainer = []
    for chars in args.trainer_words:
        for capped in [True, False] if args.uncapped else [True]:
            r = time_trainer(root, chars, capped, args.vocab, args.timeout)
            trainer.append({"word_chars": chars, "cap": "on" if capped else "off", **r})
    if trainer:
        lines += ["", f"train_tokenizer alone (vocab {args.vocab}) on the news with one word:", "",
                  "| word (characters) | training cap | training (s) |", "|---|---|---|"]
        for row in trainer:
            t = f">{args.timeout:.0f} (killed)" if row["train_s"] is None else f"{row['train_s']:.2f}"
            lines.append(f"| {row['word_chars']:,} | {row['cap']} | {t} |")
    markdown = "\n".join(lines) + "\n"
    print(markdown)
    common.write_results(args.json, {"word_chars": args.word_chars, "stage": rows, "trainer": trainer})
    if args.work is None:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
