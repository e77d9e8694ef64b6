"""HTML extraction in a sandboxed child process, one per worker process: the page goes in over a pipe,
the text comes back; a page that takes longer than `timeout_s` gets the child killed (and a new one
started for the next page) and is rejected with reason `timeout`; a child that dies (a crash in the
parser, its memory limit) rejects the page with `extractor_crash`; an exception inside the extractor
rejects it with `extractor_error`. The child has an address-space limit and no core dumps, writes
nothing to the parent's output, and keeps no state between pages (so the output never depends on which
child saw which pages, or in what order). It dies with its parent (PR_SET_PDEATHSIG on Linux, else a
thread watching the parent's pid): it runs in a session of its own, so a kill -9 of the stage's process
group does not reach it, and a page that keeps it busy would keep it alive after the stage (issue 53).

    python -m corpus.web.sandbox ENGINE OPTIONS_JSON MEMORY_MB [FAST_PASS_JSON]   (started by Sandbox; frames on stdin)

Frames: request = <u8 op><u32 url bytes><u32 html bytes><url utf-8><html utf-8>; reply = <u8 status><u32 n><n
bytes utf-8> with status 0 (text) or 1 (the extractor's exception, one line). Op 0 extracts the page; op 1
([extract] prefilter_lang) runs the fast pass (resiliparse with FAST_PASS_JSON) and keeps the page; op 2
(no html) extracts the page op 1 kept, so that a page the gate lets through crosses the pipe once. The kept
page is the one of the request before: no state outlives two requests about one page."""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import selectors
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

PARENT_ENV = "CORPUS_SANDBOX_PARENT"        # the pid the child dies with, and whether the thread that
PDEATHSIG_ENV = "CORPUS_SANDBOX_PDEATHSIG"  # started it is the main one (the kernel's signal follows a thread)
_PR_SET_PDEATHSIG = 1
REQUEST = struct.Struct("<BII")
EXTRACT, FAST_PASS, EXTRACT_KEPT = 0, 1, 2
REPLY = struct.Struct("<BI")
OK, FAILED = 0, 1


class Sandbox:
    """The parent's side: `extract(html, url)` -> (text, None) or (None, (reason, detail))."""

    def __init__(self, engine: str, options: dict, timeout_s: float, memory_mb: int, fast_pass: dict | None = None):
        self.engine, self.options, self.timeout_s, self.memory_mb = engine, options, timeout_s, memory_mb
        self.fast_pass_options = fast_pass
        self.proc: subprocess.Popen | None = None
        self.started = 0  # children started (1 + restarts after timeouts and crashes)
        self._held: tuple | None = None  # (child, html) of the page the last fast pass kept there

    def _start(self) -> subprocess.Popen:
        package_root = str(Path(__file__).resolve().parents[2])  # the directory that holds corpus/
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH"))
                                                          if p),
                   OMP_NUM_THREADS="1", PYTHONHASHSEED="0", **{PARENT_ENV: str(os.getpid()),
                   PDEATHSIG_ENV: "1" if threading.current_thread() is threading.main_thread() else "0"})
        fast = [json.dumps(self.fast_pass_options, sort_keys=True)] if self.fast_pass_options is not None else []
        self.proc = subprocess.Popen([sys.executable, "-m", "corpus.web.sandbox", self.engine,
                                      json.dumps(self.options, sort_keys=True), str(self.memory_mb), *fast],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env, start_new_session=True)
        self.started += 1
        return self.proc

    def _child(self) -> subprocess.Popen:
        """The running child, or a new one (the first page, or after a timeout or crash)."""
        return self.proc if self.proc is not None and self.proc.poll() is None else self._start()

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def _read(self, n: int, deadline: float) -> bytes | None:
        """n bytes of the child's reply, or None at the deadline (b"" short read: the child died)."""
        fd = self.proc.stdout.fileno()
        chunks, got = [], 0
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while got < n:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    return None
                chunk = os.read(fd, min(n - got, 1 << 20))
                if not chunk:
                    return b""
                chunks.append(chunk)
                got += len(chunk)
        return b"".join(chunks)

    def extract(self, html: str, url: str) -> tuple[str | None, tuple[str, str] | None]:
        """The page's text by the engine, or a reject (reason, detail)."""
        proc = self._child()
        if self._held is not None and self._held[0] is proc and self._held[1] is html:  # there already
            return self._ask(proc, EXTRACT_KEPT, url, None)
        return self._ask(proc, EXTRACT, url, html)

    def fast_pass(self, html: str, url: str) -> tuple[str | None, tuple[str, str] | None]:
        """The page's text by the fast pass (a Sandbox made with `fast_pass` options), kept in the child for
        an `extract` of the same page next."""
        proc = self._child()
        out = self._ask(proc, FAST_PASS, url, html)
        self._held = (proc, html) if out[1] is None else None
        return out

    def _ask(self, proc: subprocess.Popen, op: int, url: str, html: str | None):
        self._held = None
        u = url.encode("utf-8", "surrogatepass")
        h = html.encode("utf-8", "surrogatepass") if html is not None else b""
        try:
            proc.stdin.write(REQUEST.pack(op, len(u), len(h)) + u + h)
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return None, self._died()
        deadline = time.monotonic() + self.timeout_s
        head = self._read(REPLY.size, deadline)
        if head is None:
            self.close()
            return None, ("timeout", f"no result after {self.timeout_s:g} s; the extractor was killed")
        if len(head) < REPLY.size:
            return None, self._died()
        status, n = REPLY.unpack(head)
        body = self._read(n, deadline)
        if body is None:
            self.close()
            return None, ("timeout", f"no result after {self.timeout_s:g} s; the extractor was killed")
        if len(body) < n:
            return None, self._died()
        text = body.decode("utf-8", "surrogatepass")
        return (text, None) if status == OK else (None, ("extractor_error", text))

    def _died(self) -> tuple[str, str]:
        code = self.proc.wait() if self.proc is not None else None
        self.proc = None
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return "extractor_crash", f"the extractor process died ({how})"


_SANDBOXES: dict[tuple, Sandbox] = {}


def sandbox(engine: str, options: dict, timeout_s: float, memory_mb: int, fast_pass: dict | None = None) -> Sandbox:
    """The worker process's sandbox for these settings (started on its first page, closed at exit)."""
    key = (engine, json.dumps(options, sort_keys=True), timeout_s, memory_mb, json.dumps(fast_pass, sort_keys=True))
    if key not in _SANDBOXES:
        _SANDBOXES[key] = Sandbox(engine, options, timeout_s, memory_mb, fast_pass)
    return _SANDBOXES[key]


@atexit.register
def close_all() -> None:
    for s in _SANDBOXES.values():
        s.close()


# ---------------------------------------------------------------- the child

def _read_exact(stream, n: int) -> bytes:
    data = stream.read(n)
    if len(data) != n:
        raise EOFError
    return data


def die_with_parent() -> None:
    """SIGKILL when the parent dies: by the kernel (prctl PR_SET_PDEATHSIG) when the parent started this
    child from its main thread (the signal comes when the starting thread ends), else by a thread that
    polls the parent pid; either way at once if the parent died before this ran."""
    parent = int(os.environ.get(PARENT_ENV) or 0)
    if sys.platform.startswith("linux") and os.environ.get(PDEATHSIG_ENV) == "1":
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    elif parent:
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)
        threading.Thread(target=watch, daemon=True, name="parent-watch").start()
    if parent and os.getppid() != parent:
        os._exit(1)


def serve(engine: str, options: dict, memory_mb: int, fast_options: dict | None = None) -> None:
    import resource

    from corpus import faults
    from corpus.web.extract import extractor

    die_with_parent()
    limit = memory_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the parent, which kills this child
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever a library prints goes to stderr, never into the replies
    extract = extractor(engine, options)
    fast = extractor("resiliparse", fast_options) if fast_options is not None else None
    inp = sys.stdin.buffer
    kept = None  # the page of the last fast pass, for an EXTRACT_KEPT right after it
    while True:
        try:
            op, nu, nh = REQUEST.unpack(_read_exact(inp, REQUEST.size))
            url = _read_exact(inp, nu).decode("utf-8", "surrogatepass")
            html = _read_exact(inp, nh).decode("utf-8", "surrogatepass")
        except EOFError:
            return
        try:
            if op == FAST_PASS:
                kept = None
                if fast is None:
                    raise RuntimeError("a fast pass asked of a child started without one")
                status, payload = OK, fast(html, url or None)
                kept = html
            else:
                page = kept if op == EXTRACT_KEPT else html
                kept = None
                if page is None:
                    raise RuntimeError("no page kept for extraction")
                faults.extract_fault(url)
                status, payload = OK, extract(page, url or None)
        except Exception as e:  # noqa: BLE001 — the page is rejected with this as its reason's detail
            status, payload = FAILED, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
        data = payload.encode("utf-8", "surrogatepass")
        out.write(REPLY.pack(status, len(data)) + data)
        out.flush()


if __name__ == "__main__":
    serve(sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4]) if len(sys.argv) > 4 else None)
