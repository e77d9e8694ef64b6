"""Storage: where bytes live and how they get there safely. Atomic writes and checksums, the writer lock
and the object-store lease, the transport to an `s3://` root, finding a ledger source's bytes, and the
progress bars of long work (a stage's units, an object's bytes: the engine's and the transport's). The
bottom layer: it imports nothing from corpus but `errors`."""
