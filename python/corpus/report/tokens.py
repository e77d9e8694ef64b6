"""Token streams: tokens per split and source, dtype, files, tokenizer facts, document lengths (.idx).

The streams hold documents in a seeded permutation (stage 07), so a document's source is recovered by
replaying that permutation over the shards' rows of the split; the mapping is checked by re-encoding a
seeded handful of documents and comparing their lengths with the .idx, and dropped when it does not hold."""

from __future__ import annotations

import hashlib
import json

import numpy as np

from corpus.store.atomic import sha256_file
from corpus.config import Config
from corpus.errors import CorpusError
from corpus.config.layout import TOKENS_MANIFEST as MANIFEST, tokens_root
from corpus.tokens.checks import tokens_warnings
from corpus.tokens.workfiles import SPLITS
from corpus.tokens.plan import replay_order
from corpus.formats.megatron import MegatronIndex
from corpus.report.sampling import Budget, sample_indices
from corpus.report.shards import ShardTexts

CHECKED_DOCS = 4


def find_token_dirs(config: Config) -> list:
    """Token directories made from the current corpus manifest, by name."""
    root = tokens_root(config)
    corpus_sha = hashlib.sha256((config.dataset_dir / "_MANIFEST.json").read_bytes()).hexdigest()
    found = []
    for d in sorted(root.iterdir()) if root.is_dir() else []:
        if d.is_dir() and (d / MANIFEST).is_file():
            m = json.loads((d / MANIFEST).read_text())
            if m.get("corpus_manifest_sha256") == corpus_sha:
                found.append((d, m))
    return found


def _lengths(d, split_info: dict) -> np.ndarray:
    out = []
    for f in split_info["files"]:
        idx = d / f["idx"]
        if not idx.is_file():
            raise CorpusError(f"{idx}: listed in {d / MANIFEST} but missing")
        if sha256_file(idx) != f["idx_sha256"]:
            raise CorpusError(f"{idx}: sha256 mismatch: expected {f['idx_sha256']}")
        index = MegatronIndex(d / f["idx"].removesuffix(".idx"))
        if index.n_docs != f["docs"] or index.n_tokens != f["tokens"]:
            raise CorpusError(f"{idx}: {index.n_docs} docs / {index.n_tokens} tokens, manifest says "
                              f"{f['docs']} / {f['tokens']}")
        out.append(np.asarray(index.lengths, dtype=np.int64))
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def _primary(config: Config, found: list) -> tuple:
    """The token directory the config makes (its [mix]'s mixture, else the unmixed stream) when it is
    among `found`; else the unmixed stream first, then mixtures by name."""
    from corpus.tokens import mix as mixing

    mix_cfg = config.data.get("mix")
    want = mixing.mix_id(mixing.record(mix_cfg)) if mixing.active(mix_cfg) else None
    for d, m in found:
        if m.get("mix", {}).get("id") == want:
            return d, m
    return sorted(found, key=lambda dm: ("mix" in dm[1], dm[0].name))[0]


def collect_tokens(config: Config, corpus: dict, shards: dict, budget: Budget) -> dict | None:
    found = find_token_dirs(config)
    if not found:
        return None
    d, m = _primary(config, found)
    mix = m.get("mix")
    table = shards["table"]
    sources, splits = table.column("source_id").to_pylist(), table.column("split").to_pylist()
    texts = ShardTexts(config, corpus)
    out = {"dir": str(d), "id": m["tokenizer_id"], "others": [x.name for x, _ in found if x != d],
           "tokenizer": m["tokenizer"], "seed": m["seed"], "budgets": m["budgets"], "packages": m["packages"],
           "splits": {}, "by_source": {}, "mapping": "", "lengths": {}, "warnings": tokens_warnings(m, config),
           "mix": None}
    check = []
    for split in SPLITS:
        info = m["splits"][split]
        lengths = _lengths(d, info)
        rows = [i for i, s in enumerate(splits) if s == split]  # the split's documents in shard order
        out["splits"][split] = {"docs": info["docs"], "tokens": info["tokens"], "files": len(info["files"]),
                                "bin_bytes": sum(f["bin_bytes"] for f in info["files"]),
                                "max_doc": int(lengths.max()) if len(lengths) else 0,
                                "median_doc": float(np.median(lengths)) if len(lengths) else 0.0}
        out["lengths"][split] = lengths
        if mix is not None and split == "train":  # resampled: its counts per source are the manifest's
            out["mapping"] = _mixed_train(out["by_source"], mix, info) or out["mapping"]
            continue
        per_shard = np.bincount(np.asarray(shards["shard_of"], dtype=np.int64)[rows], minlength=len(corpus["shards"]))
        order = replay_order(m["seed"], split, per_shard.tolist())[: len(lengths)] if len(lengths) <= len(rows) else None
        if order is None:
            out["mapping"] = f"{split}: the streams hold more documents than the shards' {split} split"
            continue
        for k in sample_indices(len(order), CHECKED_DOCS, budget, f"tokens:{split}"):
            check.append((rows[int(order[k])], int(lengths[k])))
        per = out["by_source"]
        for row, n in zip(np.asarray(rows, dtype=np.int64)[order].tolist(), lengths.tolist()):
            s = _entry(per, sources[row])
            s[split] += n
            s[f"{split}_docs"] += 1
    if not out["mapping"]:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(d / m["tokenizer"]["file"]))
        for row, n in check:
            text = texts.text(shards["shard_of"][row], shards["row_of"][row])
            got = len(tok.encode(text, add_special_tokens=False).ids) + 1
            if got != n:
                out["mapping"] = (f"re-encoding shard row {row} gives {got} tokens, the stream says {n}: the "
                                  f"stream order is not the replayed permutation")
                break
    if out["mapping"]:
        out["by_source"] = {}
    out["checked_docs"] = len(check)
    out["mixes"] = [{"dir": x.name, **y["mix"]} for x, y in found if "mix" in y]
    if mix is not None:
        out["mix"] = {"dir": d.name, **mix}
    return out


def _entry(per: dict, sid: str) -> dict:
    return per.setdefault(sid, {"train": 0, "val": 0, "train_docs": 0, "val_docs": 0})


def _mixed_train(per: dict, mix: dict, info: dict) -> str:
    """A mixed stream's train tokens per source from its manifest's `mix` (the stream holds copies in
    mixed buckets, so no permutation of the shards replays it): in the stream (after the budgets) and
    before mixing. A reason when they do not add up to the split's tokens."""
    for sid, s in mix["sources"].items():
        e = _entry(per, sid)
        e["train"], e["train_docs"] = s["stream"]["train_tokens"], s["stream"]["train_docs"]
        e["train_before_mix"], e["train_docs_before_mix"] = s["before"]["train_tokens"], s["before"]["train_docs"]
    got = sum(s["stream"]["train_tokens"] for s in mix["sources"].values())
    if got != info["tokens"]:
        return f"train: the mixture's sources hold {got:,} train tokens, the stream {info['tokens']:,}"
    return ""


def summary_lines(tokens: dict | None) -> list[str]:
    """The text of `corpus report` about the tokens: per source the train tokens (before the mix, when there
    is one) and val tokens; with a mix, its share table (target and achieved shares of the mixed train
    tokens, as fractions)."""
    if not tokens:
        return []
    name = tokens["mix"]["dir"] if tokens["mix"] else tokens["id"]
    lines = [f"tokens ({name}): train {tokens['splits']['train']['tokens']:,}, val {tokens['splits']['val']['tokens']:,}"]
    if tokens["mapping"]:
        lines.append(f"tokens per source unavailable: {tokens['mapping']}")
    elif tokens["by_source"]:
        mixed = tokens["mix"] is not None
        head = f"{'source':<28} " + (f"{'train before mix':>16} {'train after mix':>16}" if mixed else f"{'train':>12}")
        lines.append(head + f" {'val':>10}")
        for sid, s in sorted(tokens["by_source"].items()):
            train = (f"{s['train_before_mix']:>16,} {s['train']:>16,}" if mixed else f"{s['train']:>12,}")
            lines.append(f"{sid:<28} {train} {s['val']:>10,}")
    if tokens["mix"]:
        mix = tokens["mix"]
        lines.append(f"mix {mix['id']}: shares of the mixed train tokens "
                     f"({mix['train_tokens']['before']:,} before, {mix['train_tokens']['after']:,} after)")
        lines.append(f"{'source':<28} {'weight':>8} {'target share':>12} {'achieved share':>14}  note")
        for sid, s in mix["sources"].items():
            target = s["target"] or {}
            want = f"{target['share']:.4f}" if "share" in target else (
                f"{target['tokens']:,} tok" if "tokens" in target else "—")
            lines.append(f"{sid:<28} {s['weight']:>8.4g} {want:>12} {s['share']:>14.4f}  {s['reason'] or ''}".rstrip())
    return lines
