"""Peer blocks for `make bench`: one block, one implementation, one worker count per process.

    python bench/peers_datatrove.py BLOCK --impl ours|datatrove --workers N --work DIR --json OUT [options]

BLOCK is one of
  gopher      Gopher quality + repetition (chained: repetition sees only what quality kept), over the
              Parquet parts in --input (bench: the 02-normalize parts). ours: filters/gopher.py +
              filters/repetition.py; datatrove: GopherQualityFilter + GopherRepetitionFilter, with the
              thresholds of --config.
  lang        language ID, keep --config's filters.lang.keep at min_score. ours: filters/lang.py;
              datatrove: LanguageFilter(backend="ft176") with the SAME lid.176.ftz file (no download).
  minhash     near-dedup end to end on --input (bench: the 03-filter parts, what the dedup stage reads).
              ours: stage 04 (`run_stage("dedup", ...)`) with --config (the bench writes one with decontam and exact
              dedup off, so only MinHash-LSH runs); datatrove: MinhashDedupSignature -> Buckets ->
              Cluster -> Filter (+ ParquetWriter), 5-word shingles, 16 buckets x 8 hashes.
  tokenize    ours: stage 07 (`run_stage("tokenize", ...)`) with --config (a tokenizer pinned to the trained
              tokenizer.json); datatrove: ParquetReader -> DocumentTokenizer with that tokenizer.json
              and EOS, on the shard Parquet files in --input.
  encode-raw  tokenizers.Tokenizer.encode_batch on all texts of --input at once (no I/O, no EOS):
              the physical limit of tokenization. Threads: RAYON_NUM_THREADS (set by the caller).
  pii         PII scrub of the text column of the Parquet parts in --input (bench: the 04-dedup parts,
              or bench/pii_speed.py's parts of real text). ours: corpus.pii.scrub.scrub_batch per part
              (default PiiParams: e-mail, phone, card, IP, key), on the corpus executor, each part read
              and written as Parquet; datatrove: ParquetReader -> PIIFormatter (e-mail and IP regexes)
              -> ParquetWriter. Writes the number of documents each changed.
  minhash-labelled  datatrove's 4-stage MinHash on articles_1000 (planted near-duplicate pairs),
              scored with bench/neardup_eval.py's pair precision/recall/F1.

Timing covers the block only: every import, model path lookup and input listing happens before the
clock starts; process pools, model loading in workers, reading the input and writing the output are
inside it (for both implementations). Writes a JSON with wall_s, docs, text_mb, kept, and the
process's own peak RSS (ru_maxrss of itself and of its waited-for children).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import sys
import time
from pathlib import Path

from common import drop_caches, maxrss_mb, mirror_dir, write_results

# ---------------------------------------------------------------- shared helpers


def parquet_files(folder: Path, pattern: str) -> list[Path]:
    return sorted(p for p in folder.glob(pattern) if p.is_file())


def text_stats(files: list[Path]) -> tuple[int, int]:
    """(documents, UTF-8 bytes of the text column) of Parquet files: the input size of a block."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    docs = nbytes = 0
    for f in files:
        col = pq.read_table(f, columns=["text"]).column("text")
        docs += len(col)
        nbytes += int(pc.sum(pc.binary_length(col)).as_py() or 0)
    return docs, nbytes


def load_filters(config_path: str) -> dict:
    from corpus.config import load_config

    return load_config(config_path)["filters"]


# ---------------------------------------------------------------- ours: filter blocks (corpus executor)


def _ours_gopher_unit(unit: tuple[str, str]) -> list[str]:
    import pyarrow.parquet as pq

    from corpus.filters.gopher import gopher_quality
    from corpus.filters.registry import build_params, registry
    from corpus.filters.repetition import gopher_repetition

    path, filters_json = unit
    filters = json.loads(filters_json)
    g, r = (build_params(registry()[n], filters[n]) for n in ("gopher", "repetition"))
    t = pq.read_table(path, columns=["id", "text"])
    return [i for i, text in zip(t.column("id").to_pylist(), t.column("text").to_pylist())
            if gopher_quality(text, g) is None and gopher_repetition(text, r) is None]


def _ours_lang_unit(unit: tuple[str, str]) -> list[str]:
    import pyarrow.parquet as pq

    from corpus.filters import lang as lang_id

    path, filters_json = unit
    cfg = json.loads(filters_json)["lang"]
    model = lang_id.load_model(cfg.get("model", ""))  # cached: once per worker process
    keep, min_score = set(cfg["keep"]), cfg["min_score"]
    t = pq.read_table(path, columns=["id", "text"])
    return [i for i, text in zip(t.column("id").to_pylist(), t.column("text").to_pylist())
            if lang_id.language_of(text, model, min_score)[0] in keep]


def ours_filter_block(block: str, files: list[Path], filters: dict, workers: int) -> tuple[float, list[str]]:
    from corpus.engine.executor import map_units

    fn = _ours_gopher_unit if block == "gopher" else _ours_lang_unit
    units = [(str(f), json.dumps(filters)) for f in files]
    t0 = time.perf_counter()
    kept = [i for ids in map_units(fn, units, workers=workers, desc=f"bench {block}", unit="parts") for i in ids]
    return time.perf_counter() - t0, kept


# ---------------------------------------------------------------- datatrove: filter blocks


def _dt_collect_ids(out_dir: str):
    """A last pipeline step that writes the ids of the documents that reached it (kept ids)."""

    def collect(data, rank: int = 0, world_size: int = 1):
        with open(os.path.join(out_dir, f"kept-{rank:05d}.txt"), "w", encoding="utf-8") as f:
            for doc in data:
                f.write(doc.id + "\n")
        return
        yield  # a generator step

    return collect


def _read_kept(out_dir: Path) -> list[str]:
    kept: list[str] = []
    for f in sorted(out_dir.glob("kept-*.txt")):
        kept += [line for line in f.read_text(encoding="utf-8").splitlines() if line]
    return kept


class _ArrayScores:
    """fasttext-predict (the predict-only fastText build corpus uses) returns scores as a tuple of floats;
    datatrove calls `.item()` on them as it expects fasttext-numpy2-wheel's numpy arrays. This adapter
    converts, nothing else: the model file and the C++ predictor are the ones corpus uses."""

    def __init__(self, model):
        self._m = model

    def predict(self, text, k=1, threshold=0.0):
        import numpy as np

        labels, scores = self._m.predict(text, k=k, threshold=threshold)
        return labels, np.asarray(scores, dtype=np.float64)


def _allow_fasttext_predict() -> None:
    """datatrove's LanguageFilter insists on the *distribution* fasttext-numpy2-wheel; the `fasttext` module
    here comes from fasttext-predict (the same fastText predictor, predict-only). Installing both would make
    two distributions own one module in a shared venv, so the distribution check is relaxed instead."""
    from datatrove.utils import _import_utils

    original = _import_utils._is_distribution_available

    def available(name: str):
        return True if name == "fasttext-numpy2-wheel" else original(name)

    _import_utils._is_distribution_available = available


# Pool workers unpickle the LanguageFilter (and re-run its dependency check) in fresh processes that import
# this file as their main module: the relaxation is applied there too, by this environment variable.
_DT_FASTTEXT_ENV = "CORPUS_BENCH_DT_FASTTEXT_PREDICT"
if os.environ.get(_DT_FASTTEXT_ENV) == "1":
    _allow_fasttext_predict()


def _local_ft176(model_path: str):
    """datatrove's FT176LID reading a local lid.176 file instead of downloading lid.176.bin."""
    from datatrove.utils.lid import FT176LID

    class LocalFT176LID(FT176LID):
        @property
        def model(self):
            if self._model is None:
                from fasttext.FastText import _FastText

                self._model = _ArrayScores(_FastText(model_path))
            return self._model

    return LocalFT176LID


def dt_filter_block(block: str, folder: Path, pattern: str, filters: dict, workers: int, work: Path,
                    model_path: str) -> tuple[float, list[str]]:
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import ParquetReader

    out = work / f"dt-{block}-kept"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    reader = ParquetReader(str(folder), glob_pattern=pattern, recursive=False, read_metadata=False,
                           text_key="text", id_key="id")
    if block == "gopher":
        from datatrove.pipeline.filters import GopherQualityFilter, GopherRepetitionFilter

        g, r = filters["gopher"], filters["repetition"]
        steps = [GopherQualityFilter(min_doc_words=g["min_words"], max_doc_words=g["max_words"],
                                     min_avg_word_length=g["min_mean_word_length"],
                                     max_avg_word_length=g["max_mean_word_length"],
                                     max_symbol_word_ratio=g["max_symbol_word_ratio"],
                                     max_bullet_lines_ratio=g["max_bullet_lines_ratio"],
                                     max_ellipsis_lines_ratio=g["max_ellipsis_lines_ratio"],
                                     max_non_alpha_words_ratio=g["min_alpha_words_ratio"],
                                     min_stop_words=g["min_stop_words"], stop_words=list(g["stop_words"])),
                 GopherRepetitionFilter(dup_line_frac=r["dup_line_frac"], dup_para_frac=r["dup_para_frac"],
                                        dup_line_char_frac=r["dup_line_char_frac"],
                                        dup_para_char_frac=r["dup_para_char_frac"],
                                        top_n_grams=tuple((int(n), float(f)) for n, f in r["top_ngram_char_frac"]),
                                        dup_n_grams=tuple((int(n), float(f)) for n, f in r["dup_ngram_char_frac"]))]
    else:
        from datatrove.pipeline.filters import LanguageFilter

        os.environ[_DT_FASTTEXT_ENV] = "1"  # before the pool starts: inherited by its workers
        _allow_fasttext_predict()
        lang = filters["lang"]
        lf = LanguageFilter(languages=list(lang["keep"]), language_threshold=lang["min_score"], backend="ft176")
        lf.model = _local_ft176(model_path)(list(lang["keep"]))
        steps = [lf]
    executor = LocalPipelineExecutor([reader, *steps, _dt_collect_ids(str(out))], tasks=workers, workers=workers,
                                     logging_dir=str(work / f"dt-{block}-logs"), skip_completed=False)
    t0 = time.perf_counter()
    executor.run()
    wall = time.perf_counter() - t0
    return wall, _read_kept(out)


# ---------------------------------------------------------------- PII


def _ours_pii_unit(unit: tuple[str, str]) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpus.pii.scrub import PiiParams, scrub_batch

    path, out_dir = unit
    table = pq.read_table(path)
    texts = table.column("text").to_pylist()
    results = scrub_batch(texts, PiiParams())
    out = table.set_column(table.schema.get_field_index("text"), "text", pa.array([t for t, _ in results], pa.string()))
    pq.write_table(out, os.path.join(out_dir, os.path.basename(path)), compression="zstd")
    return sum(new != old for (new, _), old in zip(results, texts))


def ours_pii(files: list[Path], workers: int, work: Path) -> tuple[float, dict]:
    from corpus.engine.executor import map_units

    out = work / "ours-pii"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    t0 = time.perf_counter()
    changed = sum(map_units(_ours_pii_unit, [(str(f), str(out)) for f in files], workers=workers,
                            desc="bench pii", unit="parts"))
    return time.perf_counter() - t0, {"docs_changed": changed}


def dt_pii(folder: Path, pattern: str, workers: int, work: Path) -> tuple[float, dict]:
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.formatters import PIIFormatter
    from datatrove.pipeline.readers import ParquetReader
    from datatrove.pipeline.writers import ParquetWriter

    out = work / "dt-pii"
    shutil.rmtree(out, ignore_errors=True)
    ex = LocalPipelineExecutor([
        ParquetReader(str(folder), glob_pattern=pattern, recursive=False, read_metadata=False, text_key="text",
                      id_key="id"),
        PIIFormatter(),
        ParquetWriter(str(out), compression="zstd"),
    ], tasks=workers, workers=workers, logging_dir=str(work / "dt-pii-logs"), skip_completed=False)
    t0 = time.perf_counter()
    ex.run()
    return time.perf_counter() - t0, {}


# ---------------------------------------------------------------- MinHash


def dt_minhash_config():
    from datatrove.pipeline.dedup.minhash import MinhashConfig

    # 5-word shingles, 16 buckets x 8 hashes = 128 permutations (corpus's banding before exact verification;
    # its default is now 20 bands x 5 rows, docs/dedup-banding.md).
    # Hashing is datatrove's default (64-bit xxhash); its seed 1 matches corpus's dedup.seed.
    return MinhashConfig(n_grams=5, num_buckets=16, hashes_per_bucket=8, seed=1)


def dt_minhash(folder: Path, pattern: str, workers: int, work: Path, *, save_clusters: bool = False,
               write_output: bool = True) -> tuple[float, dict]:
    """The 4 datatrove MinHash stages end to end, on local folders. Returns (wall, facts)."""
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.dedup.minhash import (MinhashDedupBuckets, MinhashDedupCluster, MinhashDedupFilter,
                                                  MinhashDedupSignature)
    from datatrove.pipeline.readers import ParquetReader
    from datatrove.pipeline.writers import ParquetWriter

    root = work / "dt-minhash"
    shutil.rmtree(root, ignore_errors=True)
    cfg = dt_minhash_config()
    sigs, buckets, remove, out = root / "signatures", root / "buckets", root / "remove_ids", root / "output"

    def reader():
        return ParquetReader(str(folder), glob_pattern=pattern, recursive=False, read_metadata=write_output,
                             text_key="text", id_key="id")

    stages = [
        LocalPipelineExecutor([reader(), MinhashDedupSignature(output_folder=str(sigs), config=cfg)],
                              tasks=workers, workers=workers, logging_dir=str(root / "logs/1-signatures"),
                              skip_completed=False),
        # world size must be a multiple of num_buckets: one task per bucket, `workers` at a time
        LocalPipelineExecutor([MinhashDedupBuckets(input_folder=str(sigs), output_folder=str(buckets), config=cfg)],
                              tasks=cfg.num_buckets, workers=workers, logging_dir=str(root / "logs/2-buckets"),
                              skip_completed=False),
        LocalPipelineExecutor([MinhashDedupCluster(input_folder=str(buckets), output_folder=str(remove), config=cfg,
                                                   save_cluster_id=save_clusters)],
                              tasks=1, workers=1, logging_dir=str(root / "logs/3-cluster"), skip_completed=False),
        LocalPipelineExecutor([reader(), MinhashDedupFilter(input_folder=str(remove)),
                               *( [ParquetWriter(str(out), compression="zstd")] if write_output else [])],
                              tasks=workers, workers=workers, logging_dir=str(root / "logs/4-filter"),
                              skip_completed=False),
    ]
    t0 = time.perf_counter()
    step_walls = []
    for ex in stages:
        s0 = time.perf_counter()
        ex.run()
        step_walls.append(round(time.perf_counter() - s0, 3))
    wall = time.perf_counter() - t0
    removed = sum(f.stat().st_size // 4 for f in remove.glob("*.remove"))
    return wall, {"step_walls_s": dict(zip(["signature", "buckets", "cluster", "filter"], step_walls)),
                  "removed": removed, "root": root}


def ours_stage(stage: str, config_path: str, workers: int):
    """(wall, result) of one of our stages, forced, the config loaded before the clock starts."""
    from corpus.config import load_config
    from corpus.stages import run_stage

    config = load_config(config_path)
    drop_caches(config.artifacts)  # the whole work: not encoded shards or memos an earlier run left in the cache
    t0 = time.perf_counter()
    result = run_stage(stage, config, workers=workers, force=True)
    return time.perf_counter() - t0, result


def ours_minhash(config_path: str, workers: int) -> tuple[float, dict]:
    wall, result = ours_stage("dedup", config_path, workers)
    counts = result.manifest["counts"]
    return wall, {"removed": counts["docs_in"] - counts["docs_out"], "dropped": counts["dropped"]}


def minhash_labelled(work: Path, mirror: Path) -> dict:
    """datatrove MinHash on articles_1000 with cluster ids saved; found pairs = all pairs inside a cluster."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    import neardup_eval as nd  # bench/ is on sys.path: this file runs as a script

    ids, texts = nd.read_articles(mirror / nd.ARTICLES_1000)
    truth = nd.read_truth(mirror / nd.ARTICLES_1000_TRUTH)
    src = work / "dt-labelled-input"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    pq.write_table(pa.table({"id": ids, "text": texts}), src / "part-00000.parquet")
    wall, facts = dt_minhash(src, "part-*.parquet", 1, work, save_clusters=True, write_output=False)
    clusters: dict[int, list[str]] = {}
    for f in sorted((facts["root"] / "remove_ids").glob("*.clusters")):
        data = f.read_bytes()
        for doc, cluster in struct.iter_unpack("<2I", data):
            clusters.setdefault(cluster, []).append(ids[doc])
    found = {frozenset((a, b)) for members in clusters.values() for i, a in enumerate(members) for b in members[i + 1:]}
    return {"documents": len(ids), "truth_pairs": len(truth), "clusters": len(clusters),
            **nd.scores(found, truth), "wall_s": round(wall, 3),
            "config": "5-word shingles, 16 buckets x 8 hashes (64-bit xxhash), no Jaccard confirmation"}


# ---------------------------------------------------------------- tokenize


def dt_tokenize(folder: Path, tokenizer: str, eos: str, workers: int, work: Path) -> tuple[float, dict]:
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.readers import ParquetReader
    from datatrove.pipeline.tokens import DocumentTokenizer

    out = work / "dt-tokens"
    shutil.rmtree(out, ignore_errors=True)
    ex = LocalPipelineExecutor([
        ParquetReader(str(folder), glob_pattern="shard-*.parquet", recursive=False, read_metadata=False,
                      text_key="text", id_key="id"),
        DocumentTokenizer(output_folder=str(out), tokenizer_name_or_path=tokenizer, eos_token=eos, seed=1337),
    ], tasks=workers, workers=workers, logging_dir=str(work / "dt-tokens-logs"), skip_completed=False)
    t0 = time.perf_counter()
    ex.run()
    wall = time.perf_counter() - t0
    tokens = sum(f.stat().st_size for f in out.glob("*.ds")) // 2
    return wall, {"tokens_uint16_estimate": tokens}


def ours_tokenize(config_path: str, workers: int) -> tuple[float, dict]:
    wall, result = ours_stage("tokenize", config_path, workers)
    m = json.loads((result.path / "_MANIFEST.json").read_text())
    return wall, {"tokens": sum(s["tokens"] for s in m["splits"].values()), "dir": str(result.path)}


def encode_raw(files: list[Path], tokenizer: str, repeat: int) -> tuple[float, dict]:
    import pyarrow.parquet as pq
    from tokenizers import Tokenizer

    texts: list[str] = []
    for f in files:
        texts += pq.read_table(f, columns=["text"]).column("text").to_pylist()
    tok = Tokenizer.from_file(tokenizer)
    tok.encode_batch(texts[:64], add_special_tokens=False)  # start the thread pool
    walls, tokens = [], 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        enc = tok.encode_batch(texts, add_special_tokens=False)
        walls.append(time.perf_counter() - t0)
        tokens = sum(len(e.ids) for e in enc)
        del enc
    facts = {"tokens": tokens, "repeats": repeat, "walls_s": [round(w, 3) for w in walls],
             "rayon_threads": os.environ.get("RAYON_NUM_THREADS", "default")}
    if hasattr(tok, "encode_batch_fast"):  # tokenizers >= 0.20: no offsets, the lower bound of encoding
        fast = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            tok.encode_batch_fast(texts, add_special_tokens=False)
            fast.append(time.perf_counter() - t0)
        facts["encode_batch_fast_wall_s"] = min(fast)
    return min(walls), facts


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("block", choices=["gopher", "lang", "minhash", "tokenize", "encode-raw", "minhash-labelled", "pii"])
    ap.add_argument("--impl", choices=["ours", "datatrove"], default="datatrove")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--input", type=Path, help="folder of Parquet parts (part-*.parquet) or shards (shard-*.parquet)")
    ap.add_argument("--config", help="corpus config (filter thresholds; the dedup/tokenize variant for ours)")
    ap.add_argument("--tokenizer", help="tokenizer.json (tokenize, encode-raw)")
    ap.add_argument("--eos", default="<|endoftext|>")
    ap.add_argument("--repeat", type=int, default=3, help="encode-raw: best of this many")
    ap.add_argument("--mirror", type=Path, default=mirror_dir())
    ap.add_argument("--work", type=Path, required=True, help="scratch folder (outputs, datatrove logs)")
    ap.add_argument("--json", type=Path, required=True)
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)

    result: dict = {"block": args.block, "impl": args.impl, "workers": args.workers}
    # imports and input listing before any clock starts
    if args.impl == "datatrove" or args.block == "minhash-labelled":
        import datatrove  # noqa: F401
        from datatrove.executor import LocalPipelineExecutor  # noqa: F401
        from datatrove.pipeline.readers import ParquetReader  # noqa: F401
    if args.block in ("gopher", "lang", "minhash"):
        files = parquet_files(args.input, "part-*.parquet")
        result["docs"], nbytes = text_stats(files)
        result["text_mb"] = nbytes / 1e6
        if args.block == "minhash":
            wall, facts = (ours_minhash(args.config, args.workers) if args.impl == "ours"
                           else dt_minhash(args.input, "part-*.parquet", args.workers, args.work))
            facts.pop("root", None)
            result.update(facts)
        else:
            filters = load_filters(args.config)
            from corpus.filters.lang import bundled_model_path

            model_path = str(filters["lang"].get("model") or bundled_model_path())
            if args.impl == "ours":
                import corpus.filters.gopher, corpus.filters.repetition, corpus.stages.filter  # noqa: F401,E401
                wall, kept = ours_filter_block(args.block, files, filters, args.workers)
            else:
                wall, kept = dt_filter_block(args.block, args.input, "part-*.parquet", filters, args.workers,
                                             args.work, model_path)
            result["kept"] = len(kept)
            kept_file = args.work / f"kept-{args.block}-{args.impl}-w{args.workers}.txt"
            kept_file.write_text("\n".join(sorted(kept)) + "\n", encoding="utf-8")
            result["kept_file"] = str(kept_file)
    elif args.block == "pii":
        files = parquet_files(args.input, "part-*.parquet")
        result["docs"], nbytes = text_stats(files)
        result["text_mb"] = nbytes / 1e6
        if args.impl == "ours":
            import corpus.pii.scrub  # noqa: F401
            wall, facts = ours_pii(files, args.workers, args.work)
        else:
            from datatrove.pipeline.formatters import PIIFormatter  # noqa: F401
            wall, facts = dt_pii(args.input, "part-*.parquet", args.workers, args.work)
        result.update(facts)
    elif args.block in ("tokenize", "encode-raw"):
        files = parquet_files(args.input, "shard-*.parquet")
        result["docs"], nbytes = text_stats(files)
        result["text_mb"] = nbytes / 1e6
        if args.block == "encode-raw":
            wall, facts = encode_raw(files, args.tokenizer, args.repeat)
        elif args.impl == "ours":
            wall, facts = ours_tokenize(args.config, args.workers)
        else:
            import tokenizers  # noqa: F401
            wall, facts = dt_tokenize(args.input, args.tokenizer, args.eos, args.workers, args.work)
        result.update(facts)
    else:
        result.update(minhash_labelled(args.work, args.mirror))
        wall = result["wall_s"]
    result["wall_s"] = wall
    if result.get("docs"):
        result["docs_per_s"] = result["docs"] / wall
        result["mb_per_s"] = result["text_mb"] / wall
    result.update(maxrss_mb())
    write_results(args.json, result)
    print(json.dumps({k: v for k, v in result.items() if not isinstance(v, (list, dict))}, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
