"""One exception type for every expected failure: its message is the one line the user sees."""


class CorpusError(Exception):
    """A bad input, a failed check or a refused action. str(e) names the file and place."""

    exit_code = 1


class UsageError(CorpusError):
    """The command was called wrongly (an option or argument the user must change)."""

    exit_code = 2


class StaleError(CorpusError):
    """A published output no longer matches its config or inputs: rebuild it with --replace (or `corpus run`)."""


class LockedError(CorpusError):
    """Another writer holds the artifacts root (its local lock, or an s3 root's lease)."""


class DownloadFailed(CorpusError):
    """A download that did not give the file: `kind` is "missing" (HTTP 404/410, no such object),
    "truncated" (the connection ended before the announced length) or "failed" (anything else)."""

    def __init__(self, message: str, kind: str = "failed"):
        super().__init__(message)
        self.kind = kind
