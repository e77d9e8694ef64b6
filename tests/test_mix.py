"""Data mixtures ([mix], tokens/mix.py): copies per document from a keyed hash, targets resolved into
weights, copies kept apart, the val split untouched, and every byte independent of workers, partitions
and reruns; a second mix encodes nothing again (the encode cache)."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter

import numpy as np
import pyarrow.parquet as pq
import pytest

from corpus.commands.pipeline import run_all
from corpus.config import load_config
from corpus.engine.runner import RunOptions
from corpus.errors import CorpusError
from corpus.stages import run_stage
from corpus.tokens import mix
from conftest import LEDGER, error_line, run_corpus, write_config

SOURCES = ["tinystories-train-head", "wikitext2-test"]
TS, WT = SOURCES
TABLES = {"shard": {"shard_rows": 300, "val_permille": 50},
          "tokenize": {"vocab_size": 1024, "max_tokens_per_file": 50000}}
FRACTIONAL = {"mix": {"seed": 7}, "mix.weights": {TS: 0.3, WT: 2.5}}


# ---------------------------------------------------------------- the rules, on their own

def test_copies_are_floor_plus_a_keyed_coin():
    ids = [f"s:{i}" for i in range(20000)]
    h = mix.doc_hashes(3, ["s"] * len(ids), ids)
    for w, lo, hi in ((0.0, 0, 0), (0.3, 0, 1), (1.0, 1, 1), (2.5, 2, 3), (4.0, 4, 4)):
        whole, thr = mix.weight_parts(w)
        n = mix.copies(h[:, 0], np.full(len(ids), whole), np.full(len(ids), thr, np.uint64))
        assert n.min() >= lo and n.max() <= hi, w
        assert abs(n.mean() - w) < 0.02, (w, n.mean())
    # a document's copies depend on (seed, source, id) only: any order, any subset gives the same coin
    perm = np.random.default_rng(0).permutation(len(ids))[:500]
    again = mix.doc_hashes(3, ["s"] * 500, [ids[i] for i in perm])
    assert (again == h[perm]).all()
    assert (mix.doc_hashes(4, ["s"] * 10, ids[:10]) != h[:10]).any()
    assert (mix.doc_hashes(3, ["t"] * 10, ids[:10]) != h[:10]).any()


def test_unknown_source_weight_above_cap_and_bad_shares_are_one_line_errors():
    base = {"seed": 0, "max_repeats": 4}
    with pytest.raises(CorpusError, match="mix.weights.nosuch: unknown source 'nosuch'"):
        mix.check({**base, "weights": {"nosuch": 2}}, SOURCES, "c.toml")
    with pytest.raises(CorpusError, match="mix.targets.wiki: unknown source 'wiki'"):
        mix.check({**base, "targets": {"wiki": "10%"}}, SOURCES, "c.toml")
    with pytest.raises(CorpusError, match="above mix.max_repeats = 4"):
        mix.check({**base, "weights": {TS: 5}}, SOURCES, "c.toml")
    with pytest.raises(CorpusError, match="both a weight and a target"):
        mix.check({**base, "weights": {TS: 1}, "targets": {TS: 10}}, SOURCES, "c.toml")
    with pytest.raises(CorpusError, match="sum to 90%, not 100%"):
        mix.check({**base, "targets": {TS: "60%", WT: "30%"}}, SOURCES, "c.toml")
    with pytest.raises(CorpusError, match="neither a token count nor a share"):
        mix.check({**base, "targets": {TS: "lots"}}, SOURCES, "c.toml")
    with pytest.raises(CorpusError, match=r"^c.toml: mix.weights: every \[mix\] weight is 0 .*nothing would be trained on$"):
        mix.check({**base, "weights": {s: 0 for s in SOURCES}}, SOURCES, "c.toml")
    mix.check({**base, "weights": {SOURCES[0]: 0}}, SOURCES, "c.toml")  # another source is still trained on


def _synthetic(n_per_source=(4000, 300), seed=1):
    rng = np.random.default_rng(seed)
    src = np.concatenate([np.full(n, i) for i, n in enumerate(n_per_source)])
    ids = [f"{SOURCES[s]}:{k}" for k, s in enumerate(src)]
    lengths = np.concatenate([rng.integers(50, 400, n_per_source[0]), rng.integers(500, 5000, n_per_source[1])])
    h = mix.doc_hashes(seed, [SOURCES[s] for s in src], ids)
    hist = mix.histogram(src, h[:, 0], lengths, 2)
    tokens = {s: int(lengths[src == i].sum()) for i, s in enumerate(SOURCES)}
    return src, h, lengths, hist, tokens


def _realised(w, src, h, lengths):
    whole = np.array([w[s]["whole"] for s in SOURCES])[src]
    thr = np.array([w[s]["threshold"] for s in SOURCES], np.uint64)[src]
    n = mix.copies(h[:, 0], whole, thr)
    return {s: int((n * lengths)[src == i].sum()) for i, s in enumerate(SOURCES)}


@pytest.mark.parametrize("targets", [{WT: "20%"}, {WT: "60%"}, {TS: "35%", WT: "65%"}, {TS: 300000},
                                     {"x": 0, TS: "35%", WT: "65%"}])
def test_targets_are_met_within_half_a_percent(targets):
    src, h, lengths, hist, tokens = _synthetic()
    weights = {s: targets.pop(s) for s in [s for s in targets if s not in SOURCES]}  # a third source, weight 0
    sources = SOURCES + list(weights)
    tokens.update({s: 5000 for s in weights})
    hist = np.vstack([hist, np.zeros((len(weights), mix.HIST_BINS), np.int64)])
    cfg = {"seed": 1, "max_repeats": 4, "weights": weights, "targets": targets}
    mix.check(cfg, sources, "c.toml")
    w = mix.resolve(cfg, sources, tokens, hist)
    got = _realised(w, src, h, lengths)
    total = sum(got.values())
    for s, t in targets.items():
        assert w[s]["reason"] is None
        if isinstance(t, int):
            assert abs(got[s] - t) / t < 0.005, (s, got[s], t)
        else:
            assert abs(got[s] / total - float(t.rstrip("%")) / 100) < 0.005, (s, got[s] / total, t)
            assert w[s]["target"]["share"] == float(t.rstrip("%")) / 100  # a fraction, as the realised share


def test_a_target_larger_than_its_source_is_capped_with_the_reason():
    src, h, lengths, hist, tokens = _synthetic()
    cfg = {"seed": 1, "max_repeats": 3, "weights": {}, "targets": {WT: 10 * tokens[WT]}}
    w = mix.resolve(cfg, SOURCES, tokens, hist)
    assert (w[WT]["whole"], w[WT]["threshold"]) == (3, 0)
    assert "above max_repeats = 3: capped at 3" in w[WT]["reason"]
    # as a share: 90% of the tokens cannot come from wikitext with 3 copies; the share is capped, said so
    w = mix.resolve({**cfg, "targets": {WT: "90%"}}, SOURCES, tokens, hist)
    assert w[WT]["whole"] == 3 and "capped at 3" in w[WT]["reason"]
    # every source a share: the total is lowered so both shares hold, and the reason names the source
    w = mix.resolve({**cfg, "max_repeats": 1, "targets": {TS: "10%", WT: "90%"}}, SOURCES, tokens, hist)
    got = _realised(w, src, h, lengths)
    assert abs(got[WT] / sum(got.values()) - 0.9) < 0.005
    assert "lowered" in w[WT]["reason"] and WT in w[WT]["reason"]


def test_copies_are_placed_at_least_two_kept_buckets_apart():
    kept = np.array(sorted(np.random.default_rng(0).choice(4096, 40, replace=False)))
    for bits in range(300):
        b0 = int(kept[bits % len(kept)])
        got = mix.place(b0, 14, bits * 0x9E3779B97F4A7C15 % (1 << 64), kept)
        ranks = sorted(int(np.searchsorted(kept, b)) for b in [b0, *got])
        assert len(set(ranks)) == 14 and min(np.diff(ranks)) >= 2
    assert mix.need_buckets(14) == 40


# ---------------------------------------------------------------- the token stage, on real shards

def config(root, name, **tables):
    return load_config(write_config(root / f"{name}.toml", ledger=LEDGER, sources=SOURCES, artifacts=root / name,
                                    **{**TABLES, **tables}))


@pytest.fixture(scope="module")
def base(tmp_path_factory, mirror):
    root = tmp_path_factory.mktemp("mix")
    cfg = config(root, "base")
    run_all(cfg, workers=1, through="shard")  # in-process: the worker counts compared are tokenize's
    return root


def tokenize(root, name, workers=1, run=None, copy=True, **tables):
    if copy and not (root / name).exists():
        shutil.copytree(root / "base", root / name, ignore=shutil.ignore_patterns("tokens", "cache"))
    cfg = config(root, name, **({"run": run} if run else {}), **tables)
    return cfg, run_stage("tokenize", cfg, RunOptions(workers=workers))


def token_files(d):
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted([*d.rglob("*.bin"), *d.rglob("*.idx")])}


def stream_docs(d, split):
    m = json.loads((d / "_MANIFEST.json").read_text())
    out = []
    for f in m["splits"][split]["files"]:
        data = np.fromfile(d / f["bin"], dtype=m["tokenizer"]["dtype"])
        lengths = np.frombuffer((d / f["idx"]).read_bytes(), "<i4", f["docs"], 9 + 8 + 1 + 8 + 8)
        out += [x.tobytes() for x in np.split(data, np.cumsum(lengths)[:-1])] if f["docs"] else []
    return out


def test_mixed_tokens_identical_for_workers_partitions_and_reruns(base):
    runs = {}
    for name, workers, p in (("w1p1", 1, 1), ("w2p3", 2, 3), ("w2p1", 2, 1)):
        cfg, res = tokenize(base, name, workers, run={"partitions": p}, **FRACTIONAL)
        assert res.status == "computed" and res.path.name.endswith(json.loads(
            (res.path / "_MANIFEST.json").read_text())["mix"]["id"])
        assert json.loads((res.path / "_RUN.json").read_text())["partitions"] == p
        runs[name] = res.path
    files = {k: token_files(p) for k, p in runs.items()}
    assert len(files["w1p1"]) >= 6 and files["w1p1"] == files["w2p3"] == files["w2p1"]
    manifests = {k: (p / "_MANIFEST.json").read_bytes() for k, p in runs.items()}
    assert manifests["w1p1"] == manifests["w2p3"] == manifests["w2p1"]
    # a rerun from scratch (--force, cache off: every shard encoded again) gives the same bytes
    cfg = config(base, "w1p1", run={"partitions": 1, "cache": False}, **FRACTIONAL)
    again = run_stage("tokenize", cfg, RunOptions(workers=2, force=True))
    assert json.loads((again.path / "_RUN.json").read_text())["encode_cache"]["off"] == 4
    assert token_files(again.path) == files["w1p1"]


def test_copies_follow_the_rule_apart_and_val_is_untouched(base):
    from tokenizers import Tokenizer

    _, plain = tokenize(base, "plain")
    _, mixed = tokenize(base, "plain", copy=False, **FRACTIONAL)
    assert plain.path.parent == mixed.path.parent and mixed.path.name.startswith(plain.path.name + "-mix-")
    assert (plain.path / "tokenizer.json").read_bytes() == (mixed.path / "tokenizer.json").read_bytes()
    # val: the same bytes in every mix
    val = {k: v for k, v in token_files(mixed.path).items() if k.startswith("val/")}
    assert val and val == {k: v for k, v in token_files(plain.path).items() if k.startswith("val/")}
    # every train document appears floor(w) + [u < frac(w)] times, and never right after itself
    m = json.loads((mixed.path / "_MANIFEST.json").read_text())
    tok = Tokenizer.from_file(str(mixed.path / "tokenizer.json"))
    corpus = json.loads((base / "plain" / "corpus" / "t" / "v1" / "_MANIFEST.json").read_text())
    rows = [r for s in corpus["shards"] for r in pq.read_table(base / "plain" / "corpus" / "t" / "v1" / s["name"],
                                                               columns=["id", "source_id", "split", "text"]).to_pylist()]
    train = [r for r in rows if r["split"] == "train"]
    h = mix.doc_hashes(7, [r["source_id"] for r in train], [r["id"] for r in train])
    weights = {TS: 0.3, WT: 2.5}
    dtype = np.dtype(m["tokenizer"]["dtype"])
    want = Counter()
    for r, (u, _) in zip(train, h.tolist()):
        whole, thr = mix.weight_parts(weights[r["source_id"]])
        n = whole + (u < thr)
        ids = tok.encode(r["text"], add_special_tokens=False).ids + [m["tokenizer"]["eos_id"]]
        want[np.asarray(ids, dtype).tobytes()] += n
    docs = stream_docs(mixed.path, "train")
    got = Counter(docs)
    assert got == +want
    assert sum(got.values()) == m["splits"]["train"]["docs"] > len(train) // 3
    assert max(got.values()) == 3 and min(want.values()) == 0
    assert all(a != b for a, b in zip(docs, docs[1:]))  # no copy next to another copy of itself
    # the manifest's record: before / after / stream per source, the repetition counts
    s = m["mix"]["sources"]
    assert s[TS]["repetitions"].keys() <= {"0", "1"} and s[WT]["repetitions"].keys() <= {"2", "3"}
    assert (s[TS]["weight"], s[WT]["weight"]) == (0.3, 2.5) and "threshold" not in s[TS]
    assert s[TS]["before"]["train_docs"] + s[WT]["before"]["train_docs"] == len(train)
    assert sum(x["after"]["train_tokens"] for x in s.values()) == m["splits"]["train"]["tokens"]
    assert s[WT]["stream"] == s[WT]["after"] and m["mix"]["repetitions"] == {
        k: s[TS]["repetitions"].get(k, 0) + s[WT]["repetitions"].get(k, 0)
        for k in sorted({*s[TS]["repetitions"], *s[WT]["repetitions"]}, key=int)}


def test_all_weights_one_is_the_unmixed_stream(base):
    _, plain = tokenize(base, "ones")
    _, ones = tokenize(base, "ones", copy=False, mix={"seed": 3}, **{"mix.weights": {TS: 1, WT: 1}})
    assert ones.path != plain.path and token_files(ones.path) == token_files(plain.path)


def test_a_second_mix_encodes_nothing_again_and_shares_are_met(base):
    cfg, first = tokenize(base, "second", mix={"seed": 1}, **{"mix.targets": {TS: "30%"}})
    run = json.loads((first.path / "_RUN.json").read_text())
    assert run["encode_cache"] == {"hits": 0, "computed": 4, "off": 0}
    cfg, second = tokenize(base, "second", copy=False, mix={"seed": 1, "max_repeats": 2},
                           **{"mix.targets": {WT: 10**7}, "mix.weights": {TS: 0}})
    run = json.loads((second.path / "_RUN.json").read_text())
    assert run["encode_cache"] == {"hits": 4, "computed": 0, "off": 0}  # every shard's tokens from the cache
    assert second.path != first.path and first.path.is_dir()
    # the tokenizer found in the first mix's directory keeps its own id: `<id>-mix-<hash>`, never twice
    tok = first.path.name.split("-mix-")[0]
    assert re.fullmatch(r"bpe\d+-[0-9a-f]{12}", tok) and second.path.name.startswith(f"{tok}-mix-")
    assert second.path.name.count("-mix-") == 1
    _, plain = tokenize(base, "second", copy=False)  # and the unmixed stream is the tokenizer's own directory
    assert plain.path.name == tok and plain.status == "computed"
    m1 = json.loads((first.path / "_MANIFEST.json").read_text())["mix"]["sources"]
    assert m1[TS]["reason"] is None and abs(m1[TS]["share"] - 0.30) < 0.005 and abs(m1[TS]["share_error"]) < 0.005
    assert m1[WT]["weight"] == 1 and m1[WT]["after"]["train_tokens"] == m1[WT]["before"]["train_tokens"]
    m2 = json.loads((second.path / "_MANIFEST.json").read_text())["mix"]["sources"]
    assert m2[TS]["after"] == {"train_docs": 0, "train_tokens": 0} and m2[TS]["repetitions"].keys() == {"0"}
    assert m2[WT]["weight"] == 2 and "capped at 2" in m2[WT]["reason"] and m2[WT]["error"] < -0.5


def test_the_loader_over_a_mixed_stream(base):
    from corpus.tokens.loader import current_tokens_dir

    _, plain = tokenize(base, "loader")
    _, res = tokenize(base, "loader", copy=False, **FRACTIONAL)
    m = json.loads((res.path / "_MANIFEST.json").read_text())
    art = base / "loader"
    assert current_tokens_dir(art, "t", "v1") == plain.path  # the README's example: the unmixed stream
    assert current_tokens_dir(art, "t", "v1", mix=m["mix"]["id"]) == res.path
    with pytest.raises(CorpusError, match="none is current with mixture mix-000000000000"):
        current_tokens_dir(art, "t", "v1", mix="mix-000000000000")
    from corpus.tokens.loader import SequentialEvalDataset, TokenStream, make_train_loader  # torch: ~4 s, not at collection
    train = TokenStream.open(res.path, "train", verify=True)
    assert len(train) == m["splits"]["train"]["tokens"] and train.n_docs == m["splits"]["train"]["docs"]
    sweep = make_train_loader(train, 64, 4, seed=5)
    batches = [next(sweep) for _ in range(6)]
    resumed = make_train_loader(train, 64, 4, seed=5)
    resumed.load_state_dict({"step": 3, "seed": 5})
    for want in batches[3:]:
        got = next(resumed)
        assert all((a == b).all() for a, b in zip(got, want))
    val = TokenStream.open(res.path, "val")
    ds = SequentialEvalDataset(val, 128, 96)
    scored = np.zeros(len(val), int)
    for k in range(len(ds)):
        _, _, mask = ds[k]
        first = int(ds.starts[k]) + 1
        scored[first: first + len(mask)] += mask.numpy()
    assert (scored[1:] == 1).all()


def test_an_unknown_source_is_one_line_and_exits_non_zero(tmp_path):
    cfg = write_config(tmp_path / "c.toml", ledger=LEDGER, sources=SOURCES, artifacts=tmp_path / "a",
                       **{"mix.weights": {"wikipedia": 2}})
    for command in (["tokenize"], ["run"]):  # `corpus run`: before the first stage, not after shard
        line = error_line(run_corpus("--config", cfg, *command))
        assert "mix.weights.wikipedia: unknown source 'wikipedia'" in line, command
    assert not (tmp_path / "a" / "corpus").exists()


def test_why_counts_a_documents_copies_and_the_report_charts_the_mixture(base):
    from corpus.commands.why import describe, trace
    from corpus.report.render import mixture

    cfg, res = tokenize(base, "why", **FRACTIONAL)
    m = json.loads((res.path / "_MANIFEST.json").read_text())
    rows = [r for s in sorted(cfg.dataset_dir.glob("shard-*.parquet"))
            for r in pq.read_table(s, columns=["id", "source_id", "split"]).to_pylist() if r["split"] == "train"]
    h = mix.doc_hashes(7, [r["source_id"] for r in rows], [r["id"] for r in rows])
    picks = {}
    for r, (u, _) in zip(rows, h.tolist()):
        whole, thr = mix.weight_parts({TS: 0.3, WT: 2.5}[r["source_id"]])
        picks.setdefault((r["source_id"], whole + (u < thr)), r["id"])
    assert {(WT, 2), (WT, 3), (TS, 0), (TS, 1)} <= picks.keys()
    for (sid, n), doc_id in picks.items():
        (step,) = [s for s in trace(cfg, doc_id) if s["stage"] == "tokenize" and "mix" in s]
        assert step["copies_by_rule"] == step["copies_in_stream"] == n and step["source"] == sid
        assert step["status"] == ("kept" if n else "dropped by the mix")
        assert len(step.get("at", "").split(", ")) == n or n == 0
        assert f"copies_in_stream {n}" in describe([step])[0]
    from corpus.commands.audit import audit_tokens

    checks = [c for c in audit_tokens(cfg) if c.path == str(res.path)]
    assert checks and all(c.ok for c in checks), checks  # the mix's counts add up to the shards' and the stream's
    page = mixture({"dir": res.path.name, **m["mix"]})
    assert "data:image/svg+xml;base64," in page and res.path.name in page and "3×" in page


@pytest.mark.cluster
@pytest.mark.slow
def test_mixed_tokens_identical_on_ray_and_locally(base, monkeypatch):
    """The executor never changes a byte of a mixed stream: Ray with 3 partitions, local in one."""
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    try:
        _, on_ray = tokenize(base, "ray", 2, run={"executor": "ray", "workers": 2, "partitions": 3}, **FRACTIONAL)
    finally:
        ray.shutdown()
    _, local = tokenize(base, "local", 1, run={"partitions": 1}, **FRACTIONAL)
    assert json.loads((on_ray.path / "_RUN.json").read_text())["executor"] == "ray"
    assert token_files(on_ray.path) == token_files(local.path) and len(token_files(local.path)) >= 6
    assert (on_ray.path / "_MANIFEST.json").read_bytes() == (local.path / "_MANIFEST.json").read_bytes()


def test_a_damaged_cache_entry_is_encoded_again_with_the_same_bytes(base):
    cfg, first = tokenize(base, "damaged", **FRACTIONAL)
    want = token_files(first.path)
    entries = sorted((base / "damaged" / "cache" / "tokens-encode").glob("*.train.bin"))
    assert len(entries) == 4
    with open(entries[1], "r+b") as f:  # one shard's cached train tokens, damaged in place
        f.write(b"\xff\xff\xff\xff")
    again = run_stage("tokenize", cfg, RunOptions(workers=2, force=True))
    assert json.loads((again.path / "_RUN.json").read_text())["encode_cache"] == {"hits": 3, "computed": 1, "off": 0}
    assert token_files(again.path) == want
    assert len(sorted((base / "damaged" / "cache" / "tokens-encode").glob("*.train.bin"))) == 4


def test_more_copies_than_the_buckets_can_keep_apart_is_refused(base):
    with pytest.raises(CorpusError, match=r"a document gets 1000 copies, but the train split's kept documents fill "
                                          r"only \d+ of 4096 shuffle buckets \(2998 needed"):
        tokenize(base, "toomany", mix={"max_repeats": 1000}, **{"mix.weights": {WT: 1000}})


def test_report_shows_tokens_per_source_before_and_after_the_mix_and_the_share_table(base):
    """Issue 47 item 4: with a mix (the only token directory a mixed run writes) the report's tokens per source
    are there (train before and after the mix from its manifest, val replayed and checked), not "unavailable";
    `corpus report` prints them and the share table (target and achieved shares, fractions); no budget says None."""
    from corpus.report.build import report_path

    cfg, res = tokenize(base, "report", mix={"seed": 1}, **{"mix.targets": {TS: "30%"}})
    m = json.loads((res.path / "_MANIFEST.json").read_text())
    mixed = m["mix"]["sources"]
    proc = run_corpus("--config", cfg.path, "report", check=True)
    lines = proc.stdout.splitlines()
    page = report_path(cfg).read_text()
    assert "Tokens per source unavailable" not in page and "train tokens before mix" in page
    assert "None" not in page.split('id="tokens"')[1].split("</table>")[0]  # budgets: "no limit"
    assert f"tokens ({res.path.name}): train {m['splits']['train']['tokens']:,}, val {m['splits']['val']['tokens']:,}" in lines
    rows = {ln.split()[0]: ln.split()[1:] for ln in lines[lines.index(next(x for x in lines if x.startswith("source ")
                                                                          and "train before mix" in x)) + 1:][:2]}
    val = 0
    for sid in SOURCES:
        before, after, v = (int(x.replace(",", "")) for x in rows[sid])
        assert (before, after) == (mixed[sid]["before"]["train_tokens"], mixed[sid]["stream"]["train_tokens"])
        val += v
    assert val == m["splits"]["val"]["tokens"] and mixed[TS]["after"]["train_tokens"] != mixed[TS]["before"]["train_tokens"]
    assert f"mix {m['mix']['id']}: shares of the mixed train tokens" in proc.stdout, proc.stdout
    share = {ln.split()[0]: ln.split()[1:4] for ln in lines if ln.split() and ln.split()[0] in SOURCES
             and len(ln.split()) >= 4 and ln.split()[2] in ("0.3000", "—")}
    assert share[TS] == [f"{mixed[TS]['weight']:.4g}", "0.3000", f"{mixed[TS]['share']:.4f}"], proc.stdout
    assert share[WT] == ["1", "—", f"{mixed[WT]['share']:.4f}"], proc.stdout
    assert abs(mixed[TS]["share"] - 0.3) < 0.005
