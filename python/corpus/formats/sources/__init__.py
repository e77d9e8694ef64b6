"""Reading ledger sources into documents, streaming: decompress, open archive members, parse the format, split
text. `read_documents(path, row)` yields (locator, text) in a fixed order: archive members sorted by name, then
documents in file order. A locator is the URL plus `#<line>` (1-based line where the document starts),
`#<member>:<line>` inside archives, `#row<k>` for parquet and json arrays. Every failure is a CorpusError naming
the file and place; no member is ever written to disk, and member paths that would escape their folder are
refused all the same. Nothing is read whole (except a JSON array, under `max_doc_bytes`): input is decompressed
and decoded a chunk at a time (`ReadLimits.chunk_bytes`), so memory is a chunk plus the document being
assembled, and the documents are the same whatever the chunk size. `plan_ranges` cuts a source into ranges
(byte ranges at document boundaries, Parquet row groups, archive members) whose reads, concatenated in order,
are the whole read; `read_documents(path, row, rng)` reads one of them.

- limits: `ReadLimits` (the `[fetch]` limits: document size, inflation) and the document-size checks;
- compression: gzip/bz2/xz/zstd streams (a truncated zstd frame noticed) and the bounded inflate guard;
- archives: zip and tar members in name order, refused when they escape their folder or are links;
- lines: a byte stream decoded a chunk at a time, into numbered lines or text chunks;
- splitting: text cut into documents by line, paragraph, delimiter, regex or not at all;
- fields: a JSON object's or Parquet row's `text_fields` joined into the document text;
- part: what a format reader is given (`Part`, where its stream begins) and its type (`Reader`);
- text, jsonl, json, parquet: one module a format, each with `read`;
- read: `read_documents` and the format table `FORMATS` (a new format: one module and one row there);
- ranges: `plan_ranges` and `Range`, the fetch units, and the window that reads a byte range.
"""

from corpus.formats.sources.archives import ARCHIVES, archive_of, safe_member_name
from corpus.formats.sources.compression import (COMPRESSIONS, DECODE_ERRORS, INFLATE_FLOOR, compression_of,
                                                open_decompressed)
from corpus.formats.sources.fields import join_fields
from corpus.formats.sources.limits import DEFAULT_LIMITS, MiB, ReadLimits
from corpus.formats.sources.ranges import Range, plan_ranges
from corpus.formats.sources.read import FORMATS, read_documents
from corpus.formats.sources.splitting import split_text

__all__ = ["ARCHIVES", "COMPRESSIONS", "DECODE_ERRORS", "DEFAULT_LIMITS", "FORMATS", "INFLATE_FLOOR", "MiB",
           "Range", "ReadLimits", "archive_of", "compression_of", "join_fields", "open_decompressed",
           "plan_ranges", "read_documents", "safe_member_name", "split_text"]
