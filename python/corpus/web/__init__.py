"""Web pages to documents: WARC/WET records (FastWARC), charset decoding, HTML extraction in a sandboxed
child process, URL normalisation and registered domains. Record-level logic as plain functions; the fetch
stage calls `records.web_documents` for a ledger row of format `warc`."""
