"""Counts recomputed from the files themselves, never taken from a manifest.

`part_rows(path)` counts a part's rows the cheap way its format allows (a Parquet footer, the lines of
a raw JSONL.zst part, the sequences of a Megatron `.idx`). `verify_counts(directory, manifest)` checks
a `_STAGE.json` against its parts: every part's recorded `rows` is what the file holds, `counts.docs_out`
is the rows of its main parts (`part-*`/`shard-*` at the top, or the documents of its `.idx` files),
and a token directory's `counts.tokens` are the tokens its `.idx` files index. "Current" checks
(runner.find_current) and reads of an earlier stage (runner.published_stage) run it, so an edited count
is an error naming the file, never a number that flows on into later manifests. `unlisted(directory,
names)` is every file under a published directory its manifest does not list (audit)."""

from __future__ import annotations

import io
import os
from pathlib import Path

from corpus.errors import CorpusError
from corpus.config.layout import RUN_FILE, STAGE_FILE

COUNTED_SUFFIXES = (".parquet", ".jsonl.zst", ".idx", ".bin")


# (path, device, inode, size, mtime_ns, ctime_ns) -> rows: a `corpus run` counts most parts twice, as a stage's
# current output and again as the next stage's input (324 of the demo's 405 parts); a file whose stat is
# unchanged is the same file (a rewrite, an edit in place, a rename over it all change the inode or ctime)
_COUNTED: dict[tuple, int | None] = {}


def part_rows(path: Path) -> int | None:
    """Rows (documents) in a part file, or None for files that hold no rows (tokenizer, manifests). Counted
    once a process per unchanged file (same stat)."""
    try:
        st = os.stat(path)
    except OSError:
        return _count_rows(path)  # names the file and the reason
    key = (os.fspath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    if key not in _COUNTED:
        _COUNTED[key] = _count_rows(path)
    return _COUNTED[key]


def _count_rows(path: Path) -> int | None:
    name = path.name
    try:
        if name.endswith(".parquet"):
            import pyarrow.parquet as pq

            return pq.ParquetFile(path).metadata.num_rows
        if name.endswith(".jsonl.zst"):
            import zstandard

            n = 0
            with open(path, "rb") as f, zstandard.ZstdDecompressor().stream_reader(f, read_across_frames=True) as r:
                while chunk := r.read(1 << 20):
                    n += chunk.count(b"\n")
            return n
        if name.endswith(".idx"):
            from corpus.formats.megatron import MegatronIndex

            return MegatronIndex(path.with_suffix("")).n_docs
        if name.endswith(".bin"):
            idx = path.with_suffix(".idx")
            return part_rows(idx) if idx.is_file() else None
    except CorpusError:
        raise
    except (OSError, ValueError, EOFError, io.UnsupportedOperation) as e:
        raise CorpusError(f"{path}: cannot count its rows: {e}") from None
    except Exception as e:  # a corrupt Parquet footer or zstd frame: name the file, never a traceback
        raise CorpusError(f"{path}: cannot count its rows: {type(e).__name__}: {e}") from None
    return None


def idx_tokens(path: Path) -> int:
    from corpus.formats.megatron import MegatronIndex

    try:
        return int(MegatronIndex(path.with_suffix("")).lengths.sum())
    except ValueError as e:
        raise CorpusError(str(e)) from None


def _main(name: str) -> bool:
    return "/" not in name and name.startswith(("part-", "shard-")) and name.endswith(COUNTED_SUFFIXES)


def verify_counts(directory: Path, manifest: dict) -> None:
    """Raise CorpusError naming the file when a recorded count differs from what the parts hold."""
    where = directory / STAGE_FILE
    rows = {}
    for part in manifest["parts"]:
        n = part_rows(directory / part["name"])
        if n is not None and n != part["rows"]:
            raise CorpusError(f"{directory / part['name']}: holds {n} rows, {where} says {part['rows']}")
        rows[part["name"]] = part["rows"]
    counts = manifest["counts"]
    idx = [name for name in rows if name.endswith(".idx")]
    if idx:
        docs = sum(rows[name] for name in idx)
        tokens: dict[str, int] = {}
        for name in idx:
            split = name.split("/", 1)[0] if "/" in name else ""
            tokens[split] = tokens.get(split, 0) + idx_tokens(directory / name)
        recorded = counts.get("tokens")
        if isinstance(recorded, dict) and {k: v for k, v in recorded.items() if v or k in tokens} != tokens:
            raise CorpusError(f"{where}: counts.tokens {recorded} != {tokens}, the tokens its .idx files index")
    else:
        docs = sum(n for name, n in rows.items() if _main(name))
    if counts["docs_out"] != docs:
        raise CorpusError(f"{where}: counts.docs_out is {counts['docs_out']}, its parts hold {docs} documents")


def unlisted(directory: Path, listed: set[str], *, skip_dirs: tuple[str, ...] = ()) -> list[str]:
    """Files under `directory` (relative names) that are not in `listed`: the run and stage manifests
    aside, and the subdirectories in `skip_dirs` (other outputs sharing the directory) skipped."""
    out = []
    for p in sorted(directory.rglob("*")):
        rel = p.relative_to(directory).as_posix()
        if rel.split("/", 1)[0] in skip_dirs or p.is_dir():
            continue
        if rel in (STAGE_FILE, RUN_FILE) or rel in listed:
            continue
        out.append(rel)
    return out
