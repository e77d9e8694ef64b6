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
