"""The catalogue's tally: how many bad-input cases ran (printed at the end of the session)."""

CASES: list[str] = []


def pytest_terminal_summary(terminalreporter):
    if CASES:
        terminalreporter.write_sep("-", f"bad-input catalogue: {len(CASES)} cases, each one error line")
