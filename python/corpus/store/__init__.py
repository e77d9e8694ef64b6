"""Storage: where bytes live and how they get there safely. Atomic writes and checksums, the writer lock
and the object-store lease, the transport to an `s3://` root, and finding a ledger source's bytes. The
bottom layer: it imports nothing from corpus but `errors`."""
