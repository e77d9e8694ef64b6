"""The tokens `_MANIFEST.json`'s `mix`: the [mix] table, and per source its weight, its target and how far
the mixture is from it (or why), its documents and tokens before and after mixing and in the stream (after
the budgets), and how often its documents repeat. Every share is a fraction of the mixed train tokens
(docs/formats.md lists every field)."""

from __future__ import annotations

from corpus.tokens import mix as mixing

TARGET_TOLERANCE = 0.005  # a realised share (or token count, relative) further from its target gets a reason
# the layout of the manifest's `mix`, in a mixed stream's identity: a directory written with another (a
# target share in percent, a 64-bit threshold) is stale and written again, never read as this one
MIX_MANIFEST_FORMAT = 2


def mix_manifest(mix_id: str, mix_record: dict, sources: tuple[str, ...], before: dict, weights: dict,
                 copies: list[dict], written: list[dict]) -> dict:
    """`before`: per split the sources' counts before mixing (tokens.resample.counts_before); `weights`:
    tokens.mix.resolve's; `copies`: the mix-copies results; `written`: the write results of every part."""
    after, reps = _after_mixing(copies, sources)
    stream = _in_stream(written, len(sources))
    total = sum(after["tokens"]) or 1
    out = {sid: _source_entry(i, sid, weights[sid], before, after, stream, reps[sid], total)
           for i, sid in enumerate(sources)}
    hist: dict[str, int] = {}
    for counts in reps.values():
        for n, c in counts.items():
            hist[n] = hist.get(n, 0) + c
    return {"id": mix_id, "config": mix_record, "val": "not resampled: the same val split as every mix",
            "sources": out, "repetitions": _by_copies(hist),
            "train_tokens": {"before": sum(before["train"]["tokens"]), "after": sum(after["tokens"])}}


def _after_mixing(copies: list[dict], sources: tuple[str, ...]) -> tuple[dict, dict[str, dict[str, int]]]:
    """Per source the train documents and tokens after mixing, and its repetition counts {copies: documents}."""
    after = {"docs": [0] * len(sources), "tokens": [0] * len(sources)}
    reps: dict[str, dict[str, int]] = {s: {} for s in sources}
    for r in copies:
        for kind in ("docs", "tokens"):
            after[kind] = [a + b for a, b in zip(after[kind], r["after"][kind])]
        for sid, counts in r["repetitions"].items():
            for n, c in counts.items():
                reps[sid][n] = reps[sid].get(n, 0) + c
    return after, reps


def _in_stream(written: list[dict], n_sources: int) -> dict:
    """Per source the train documents and tokens the written parts hold."""
    stream = {"docs": [0] * n_sources, "tokens": [0] * n_sources}
    for r in written:
        for k, (d, t) in r.get("by_source", {}).items():
            stream["docs"][int(k)] += d
            stream["tokens"][int(k)] += t
    return stream


def _source_entry(i: int, sid: str, w: dict, before: dict, after: dict, stream: dict, reps: dict[str, int],
                  total: int) -> dict:
    # no 64-bit threshold: the weight alone gives it back exactly (tokens.mix.weight_parts, checked here)
    weight = mixing.weight_of(w["whole"], w["threshold"])
    if mixing.weight_parts(weight) != (w["whole"], w["threshold"]):
        raise AssertionError(f"{sid}: weight {weight!r} does not give back its copies rule")
    entry = {"weight": weight, "target": w["target"], "reason": w["reason"],
             "before": {"train_docs": before["train"]["docs"][i], "train_tokens": before["train"]["tokens"][i],
                        "val_docs": before["val"]["docs"][i], "val_tokens": before["val"]["tokens"][i]},
             "after": {"train_docs": after["docs"][i], "train_tokens": after["tokens"][i]},
             "stream": {"train_docs": stream["docs"][i], "train_tokens": stream["tokens"][i]},
             "share": after["tokens"][i] / total,
             "repetitions": _by_copies(reps)}
    if w["target"] is not None:
        _add_target_error(entry, sid, w["target"], total)
    return entry


def _add_target_error(entry: dict, sid: str, target: dict, total: int) -> None:
    """The entry's error against its target (relative tokens, and for a share its share's difference),
    and, when that is beyond TARGET_TOLERANCE with no reason given, why: its documents are too long."""
    want = target["tokens"]
    entry["error"] = (entry["after"]["train_tokens"] - want) / want if want else 0.0
    if "share" in target:
        entry["share_error"] = entry["share"] - target["share"]
    off = abs(entry.get("share_error", entry["error"]))
    if entry["reason"] is None and off > TARGET_TOLERANCE and entry["after"]["train_docs"]:
        mean = entry["before"]["train_tokens"] / max(1, entry["before"]["train_docs"])
        entry["reason"] = (f"{sid}'s documents average {mean:,.0f} tokens ({mean / total:.2%} of the mixed "
                           f"train tokens each): the nearest whole number of them is {off:.2%} from the target")


def _by_copies(counts: dict[str, int]) -> dict[str, int]:
    """{copies: documents} in ascending number of copies."""
    return dict(sorted(counts.items(), key=lambda kv: int(kv[0])))
