"""Data mixtures (`[mix]`): how many copies of each train document the token stream holds.

A source's weight w is copies per document: a document gets `floor(w) + [u < frac(w)]` copies, where u is
the first 64 bits of blake2b(source "\\0" id, key = the mix seed), read as a number in [0, 1). So whether a
document is kept, dropped or repeated depends on the seed, its source and its id only — never on the order
of documents, the workers, the partitions or where the shards are stored. `[mix.weights]` sets w;
`[mix.targets]` sets train tokens (an integer) or a share of the train tokens ("20%"), which `resolve`
turns into a weight from the counted tokens per source, capped at `max_repeats`. A source named in
neither keeps w = 1. The val split is never resampled.

Copies are placed apart: copy 0 stays where the unmixed shuffle puts the document (its bucket); every
further copy goes to another bucket that holds kept documents, at least two such buckets away from each
other copy's (`place`), so another document always lies between two copies in the stream (tokens.plan:
the order is bucket by bucket). Pure functions over per-document arrays; the tokenize stage moves the bytes."""

from __future__ import annotations

import hashlib
import math
import re

import numpy as np

from corpus.errors import CorpusError

HIST_BITS = 16                  # u is binned by its top 16 bits for target resolution (65,536 bins)
HIST_BINS = 1 << HIST_BITS
_SHIFT = 64 - HIST_BITS
_TWO64 = 1 << 64
_MASK64 = _TWO64 - 1
SHARE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")


# ---------------------------------------------------------------- the [mix] table

def active(mix: dict | None) -> bool:
    """Whether a config's [mix] asks for a mixture (weights or targets named): otherwise the token
    directory, its identity and every byte are those of an unmixed run."""
    return bool(mix) and bool(mix.get("weights") or mix.get("targets"))


def check(mix: dict, sources: list[str], where: str) -> None:
    """One-line errors for a source named in [mix] that is not in [dataset] sources, a source with both a
    weight and a target, a weight above max_repeats, or shares that cannot be met."""
    known = set(sources)
    for table in ("weights", "targets"):
        for sid in mix.get(table, {}):
            if sid not in known:
                raise CorpusError(f"{where}: mix.{table}.{sid}: unknown source '{sid}' (not in [dataset] sources: "
                                  f"{', '.join(sorted(known))})")
    both = sorted(set(mix.get("weights", {})) & set(mix.get("targets", {})))
    if both:
        raise CorpusError(f"{where}: mix: source '{both[0]}' has both a weight and a target; give one")
    for sid, w in mix.get("weights", {}).items():
        if w > mix["max_repeats"]:
            raise CorpusError(f"{where}: mix.weights.{sid} = {w} is above mix.max_repeats = {mix['max_repeats']}")
    shares = {sid: parse_target(t, where, sid) for sid, t in mix.get("targets", {}).items()}
    total = sum(v for kind, v in shares.values() if kind == "share")
    if total > 100 + 1e-9:
        raise CorpusError(f"{where}: mix.targets: the shares sum to {total:g}%, more than 100%")
    dropped = {s for s, w in mix.get("weights", {}).items() if w == 0}
    if sources and known <= dropped:  # else "every source has a share ... 0%", about targets never given
        raise CorpusError(f"{where}: mix.weights: every [mix] weight is 0 ({', '.join(sorted(known))}): "
                          f"nothing would be trained on")
    if set(sources) - dropped <= {s for s, (kind, _) in shares.items() if kind == "share"}:
        if abs(total - 100) > 1e-6:
            raise CorpusError(f"{where}: mix.targets: every source has a share and they sum to {total:g}%, not 100%")
    elif total >= 100 - 1e-9 and total > 0:
        raise CorpusError(f"{where}: mix.targets: the shares sum to {total:g}%, leaving nothing for the other sources")


def parse_target(value, where: str = "", sid: str = "") -> tuple[str, float]:
    """("tokens", n) for an integer, ("share", percent) for "20%"."""
    if isinstance(value, bool):
        raise CorpusError(f"{where}: mix.targets.{sid}: {value!r} is neither a token count nor a share such as \"20%\"")
    if isinstance(value, int):
        return "tokens", float(value)
    m = SHARE.match(str(value))
    if m is None or not 0 < float(m.group(1)) <= 100:
        raise CorpusError(f"{where}: mix.targets.{sid}: \"{value}\" is neither a token count nor a share "
                          f"such as \"20%\" (0-100%)")
    return "share", float(m.group(1))


def record(mix: dict) -> dict:
    """What of [mix] decides the stream (its identity, and the manifest's `mix.config`)."""
    return {"seed": mix["seed"], "max_repeats": mix["max_repeats"], "weights": dict(sorted(mix.get("weights", {}).items())),
            "targets": dict(sorted(mix.get("targets", {}).items()))}


def mix_id(mix_record: dict) -> str:
    """"mix-<12 hex>": the mixture's name (its token directory's suffix, the manifest's `mix.id`)."""
    from corpus.store.atomic import dump_json, sha256_bytes

    return "mix-" + sha256_bytes(dump_json(mix_record))[:12]


# ---------------------------------------------------------------- per document

def doc_hashes(seed: int, sources: list[str], ids: list[str]) -> np.ndarray:
    """uint64 (n, 2): [u bits, placement bits] of each document: the two halves of
    blake2b(source "\\0" id, digest 16 bytes, key = seed as 8 big-endian bytes)."""
    key = int(seed).to_bytes(8, "big")
    out = np.empty((len(ids), 2), np.uint64)
    for i, (s, d) in enumerate(zip(sources, ids)):
        h = hashlib.blake2b(f"{s}\0{d}".encode("utf-8"), digest_size=16, key=key).digest()
        out[i, 0] = int.from_bytes(h[:8], "big")
        out[i, 1] = int.from_bytes(h[8:], "big")
    return out


def u_of(u_bits: int) -> float:
    return u_bits / _TWO64


def copies(u_bits: np.ndarray, whole: np.ndarray, threshold: np.ndarray) -> np.ndarray:
    """floor(w) + [u < frac(w)] per document, with frac(w) as a 64-bit threshold (u_bits < threshold)."""
    extra = np.asarray(u_bits, dtype=np.uint64) < np.asarray(threshold, dtype=np.uint64)
    return np.asarray(whole, dtype=np.int64) + extra.astype(np.int64)


def weight_parts(w: float) -> tuple[int, int]:
    """(floor(w), frac(w) as a threshold on u's 64 bits)."""
    whole = math.floor(w)
    return whole, min(_MASK64, int(round((w - whole) * _TWO64)))


def weight_of(whole: int, threshold: int) -> float:
    return whole + threshold / _TWO64


def histogram(source: np.ndarray, u_bits: np.ndarray, lengths: np.ndarray, n_sources: int) -> np.ndarray:
    """int64 (n_sources, HIST_BINS): tokens of each source's documents by u's top 16 bits."""
    bins = (np.asarray(u_bits, dtype=np.uint64) >> np.uint64(_SHIFT)).astype(np.int64)
    flat = np.bincount(np.asarray(source, np.int64) * HIST_BINS + bins, weights=np.asarray(lengths, np.float64),
                       minlength=n_sources * HIST_BINS)
    return np.rint(flat).astype(np.int64).reshape(n_sources, HIST_BINS)


# ---------------------------------------------------------------- weights from targets

def _expected(whole: int, threshold: int, tokens: int, cum: np.ndarray) -> float:
    """Train tokens a source gives with this weight, from its u histogram (`cum`: inclusive cumulative
    tokens per bin): exact when the threshold is a multiple of 2^48 (what `resolve` picks for targets)."""
    k, rest = divmod(threshold, 1 << _SHIFT)
    below = float(cum[k - 1]) if k else 0.0
    part = (float(cum[k]) - below) * rest / (1 << _SHIFT) if k < HIST_BINS else 0.0
    return whole * tokens + below + part


def _for_tokens(target: float, tokens: int, cum: np.ndarray, cap: int) -> tuple[int, int, bool]:
    """(whole, threshold, capped): the weight whose tokens come closest to `target`, its fraction a whole
    number of histogram bins, at most `cap` copies a document."""
    if tokens <= 0:
        return 0, 0, target > 0
    if target >= cap * tokens:
        return cap, 0, target > cap * tokens
    whole = int(target // tokens)
    need = target - whole * tokens
    # the smallest k (bins kept) with cum[k-1] >= need, or the one before it if that is closer
    k = int(np.searchsorted(cum, need, side="left")) + 1
    k = min(k, HIST_BINS)
    lo = float(cum[k - 2]) if k >= 2 else 0.0
    if k >= 1 and abs(lo - need) <= abs(float(cum[k - 1]) - need):
        k -= 1
    if k >= HIST_BINS:
        return whole + 1, 0, False
    return whole, k << _SHIFT, False


def resolve(mix: dict, sources: list[str], tokens: dict[str, int], hist: np.ndarray) -> dict[str, dict]:
    """Per source: {"whole", "threshold", "target": {...}|None, "reason"}. Weights are taken as given
    (a source named nowhere: 1); a token target becomes the weight that meets it; shares are met against
    the total train tokens, which they change themselves: total = the other sources' tokens / (1 - the
    shares). A source that cannot reach its target within max_repeats copies is capped there, the shares
    solved again without it, and the reason recorded. If every source has a share, the total is the
    unmixed train tokens of those sources (a source of weight 0 aside), lowered (the reason recorded)
    when a source could not fill its share of it."""
    cap = mix["max_repeats"]
    cums = {s: np.cumsum(hist[i]) for i, s in enumerate(sources)}
    out: dict[str, dict] = {}
    targets = {s: parse_target(mix["targets"][s], "", s) for s in sources if s in mix.get("targets", {})}
    for s in sources:
        if s in mix.get("weights", {}):
            whole, thr = weight_parts(float(mix["weights"][s]))
            out[s] = {"whole": whole, "threshold": thr, "target": None, "reason": None}
        elif s not in targets:
            out[s] = {"whole": 1, "threshold": 0, "target": None, "reason": None}
        elif targets[s][0] == "tokens":
            value = targets[s][1]
            whole, thr, short = _for_tokens(value, tokens[s], cums[s], cap)
            out[s] = {"whole": whole, "threshold": thr, "target": {"tokens": int(value)},
                      "reason": _short(s, tokens[s], value, cap) if short else None}
    shares = {s: v / 100 for s, (kind, v) in targets.items() if kind == "share"}
    if not shares:
        return out
    capped: set[str] = set()
    note: dict[str, str] = {}
    dropped = {s for s in sources if s in mix.get("weights", {}) and out[s]["whole"] == 0 and out[s]["threshold"] == 0}
    if set(shares) | dropped == set(sources):  # every source that is in the stream has a share
        total = float(sum(tokens[s] for s in shares))
        for s, p in shares.items():
            if tokens[s] <= 0:
                capped.add(s)
            elif cap * tokens[s] < p * total:
                total = cap * tokens[s] / p
                note = {s: (f"every source has a share: the train tokens were lowered to {total:,.0f} (from "
                            f"{sum(tokens[x] for x in shares):,}) because {s} has only {tokens[s]:,}, at most "
                            f"max_repeats = {cap} copies a document")}
    else:
        while True:
            fixed = sum(_expected(out[s]["whole"], out[s]["threshold"], tokens[s], cums[s])
                        for s in sources if s not in shares)
            fixed += sum(cap * tokens[s] for s in capped)
            total = fixed / max(1e-12, 1 - sum(p for s, p in shares.items() if s not in capped))
            newly = {s for s, p in shares.items() if s not in capped and p * total > cap * tokens[s]}
            if not newly:
                break
            capped |= newly
    for s, p in shares.items():
        want = p * total
        if s in capped:
            out[s] = {"whole": cap if tokens[s] > 0 else 0, "threshold": 0, "reason": _short(s, tokens[s], want, cap)}
        else:
            whole, thr, _ = _for_tokens(want, tokens[s], cums[s], cap)
            out[s] = {"whole": whole, "threshold": thr, "reason": note.get(s)}
        out[s]["target"] = {"share": p, "tokens": int(round(want))}  # a fraction, as the realised share
    return out


def _short(source: str, tokens: int, target: float, cap: int) -> str:
    if tokens <= 0:
        return f"{source} has no train tokens"
    return (f"{source} has {tokens:,} train tokens; {target:,.0f} would need {target / tokens:.2f} copies a document, "
            f"above max_repeats = {cap}: capped at {cap}")


# ---------------------------------------------------------------- placement

def _mix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def need_buckets(max_copies: int) -> int:
    """Kept buckets placement needs for `max_copies` copies of one document (each chosen bucket rules out
    itself and its two neighbours among the kept buckets, so a free one is always left)."""
    return 3 * (max_copies - 1) + 1 if max_copies > 1 else 0


def place(bucket: int, n: int, place_bits: int, kept: np.ndarray) -> list[int]:
    """The buckets of copies 1..n-1 of a document whose copy 0 is in `bucket`: each drawn from the
    sorted kept buckets `kept` (those holding a kept document) by a stream of the document's placement
    bits, then moved forward (cyclically) to the first rank at least two ranks from every copy already
    placed; so between two copies lies a kept bucket, and in it another document."""
    m = len(kept)
    chosen = [int(np.searchsorted(kept, bucket))]
    for j in range(1, n):
        r = _mix64(place_bits ^ (j * 0x2545F4914F6CDD1D & _MASK64)) % m
        for _ in range(m):
            if all(abs(r - c) >= 2 for c in chosen):
                break
            r = (r + 1) % m
        else:
            raise AssertionError("no free bucket (need_buckets was checked)")
        chosen.append(r)
    return [int(kept[r]) for r in chosen[1:]]
