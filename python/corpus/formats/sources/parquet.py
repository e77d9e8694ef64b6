"""Format `parquet`: the rows of a Parquet file, a batch at a time, its `text_fields` columns each document."""

from __future__ import annotations

from typing import IO, Iterator

from corpus.errors import CorpusError
from corpus.formats.sources.fields import join_fields
from corpus.formats.sources.limits import ReadLimits, over, too_big
from corpus.formats.sources.part import Part


def read(stream: IO[bytes], row: dict, where: str, anchor: str, limits: ReadLimits,
         part: Part) -> Iterator[tuple[str, str]]:
    """Rows of a Parquet file (`part.parquet_source`, else the seekable stream), a batch at a time; row groups
    [a, b) only when given, their first row being number `first_row`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from corpus.formats.parts import PRE_BUFFER, READ_BUFFER

    source = part.parquet_source if part.parquet_source is not None else stream
    fields = row.get("text_fields", ["text"])
    row_groups, first_row = part.row_groups, part.first_row
    limit = limits.max_doc_bytes
    try:
        pf = pq.ParquetFile(source, buffer_size=READ_BUFFER, pre_buffer=PRE_BUFFER)  # page by page
        names = [f[:-2] if f.endswith("[]") else f for f in fields]
        missing = [n for n in names if n not in pf.schema_arrow.names]
        if missing:
            raise CorpusError(f"{where}: missing column '{missing[0]}'")
        groups = list(range(*row_groups)) if row_groups is not None else None
        k = first_row
        if groups == []:
            return
        for batch in pf.iter_batches(batch_size=4096, columns=sorted(set(names)), row_groups=groups):
            for obj in batch.to_pylist():
                text = join_fields(obj, fields, f"{where}: row {k}")
                if over(text, limit):
                    raise too_big(f"{anchor}row{k}", "document", limit)
                yield f"{anchor}row{k}", text
                k += 1
    except (pa.ArrowException, OSError) as e:
        raise CorpusError(f"{where}: unreadable parquet: {e}") from None
