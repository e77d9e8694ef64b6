"""Headless Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: NUL-separated JSON on
fds 3 and 4, no port, no websocket): load a page, collect console errors, exceptions and every request it
makes, read its text, and save a full-page PNG screenshot."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class PageResult:
    text: str
    errors: list[str] = field(default_factory=list)       # console errors, exceptions, error log entries
    requests: list[str] = field(default_factory=list)     # every URL the page asked for
    height: int = 0
    values: dict = field(default_factory=dict)           # what each expression asked for evaluated to


class _Pipe:
    def __init__(self, proc: subprocess.Popen, write_fd: int, read_fd: int, log):
        self.proc, self.w, self.r, self.log = proc, write_fd, read_fd, log
        self.buf = b""
        self.next_id = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None, timeout: float = 60) -> dict:
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read(timeout)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def log_tail(self) -> str:
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")[-600:]

    def wait_event(self, method: str, timeout: float) -> dict:
        for ev in self.events:
            if ev.get("method") == method:
                return ev
        while True:
            ev = self._read(timeout)
            self.events.append(ev)
            if ev.get("method") == method:
                return ev

    def drain(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                self.events.append(self._read(left))
            except TimeoutError:
                return

    def _read(self, timeout: float) -> dict:
        end = time.monotonic() + timeout
        while b"\0" not in self.buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.r], [], [], left)[0]:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                raise RuntimeError(f"chromium closed the pipe (exit {self.proc.poll()}): {self.log_tail()}")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)


def _high(fds: tuple[int, int]) -> tuple[int, int]:
    """The pipe's ends moved above fd 9, so putting them on fds 3 and 4 in the child never overwrites one."""
    out = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in fds)  # type: ignore[misc]
    for fd in fds:
        os.close(fd)
    return out


def load_page(chromium: str, page: Path, png: Path, width: int = 1280, timeout: float = 90,
              expressions: dict[str, str] | None = None) -> PageResult:
    to_child_r, to_child_w = _high(os.pipe())
    from_child_r, from_child_w = _high(os.pipe())
    profile = tempfile.mkdtemp(prefix="report-chromium-")
    args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-background-networking", "--disable-sync", "--mute-audio",
            "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={profile}", "--remote-debugging-pipe",
            "about:blank"]
    # a small trampoline puts our pipe ends on the fds the protocol uses, 3 (commands in) and 4 (replies out)
    trampoline = (f"import os, sys; os.dup2({to_child_r}, 3); os.dup2({from_child_w}, 4); "
                  f"os.execv(sys.argv[1], sys.argv[1:])")
    cmd = [sys.executable, "-c", trampoline, *args]
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, pass_fds=(to_child_r, from_child_w), stdin=subprocess.DEVNULL, stdout=log,
                            stderr=log)
    os.close(to_child_r)
    os.close(from_child_w)
    pipe = _Pipe(proc, to_child_w, from_child_r, log)
    try:
        target = pipe.send("Target.createTarget", {"url": "about:blank"}, timeout=timeout)["targetId"]
        session = pipe.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            pipe.send(f"{domain}.enable", session=session)
        pipe.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": 900, "deviceScaleFactor": 1,
                                                          "mobile": False}, session=session)
        pipe.events.clear()
        pipe.send("Page.navigate", {"url": page.resolve().as_uri()}, session=session)
        pipe.wait_event("Page.loadEventFired", timeout)
        pipe.drain(1.0)
        text = pipe.send("Runtime.evaluate", {"expression": "document.body.innerText", "returnByValue": True},
                         session=session)["result"]["value"]
        height = int(pipe.send("Runtime.evaluate", {"expression": "document.documentElement.scrollHeight",
                                                    "returnByValue": True}, session=session)["result"]["value"])
        pipe.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                          "mobile": False}, session=session)
        shot = pipe.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                         session=session, timeout=timeout)["data"]
        png.write_bytes(base64.b64decode(shot))
        result = PageResult(text=text, height=height)
        for name, expression in (expressions or {}).items():  # after the resize: the page's final layout
            result.values[name] = pipe.send("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                                            session=session)["result"]["value"]
        for ev in pipe.events:
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                result.errors.append("console: " + " ".join(str(a.get("value", a.get("description", "")))
                                                            for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                result.errors.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:300])
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                result.errors.append(f"log: {p['entry'].get('source')}: {p['entry'].get('text')}")
            elif m == "Network.requestWillBeSent":
                result.requests.append(p["request"]["url"])
        try:
            pipe.send("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError):
            pass
        return result
    finally:
        os.close(to_child_w)
        os.close(from_child_r)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(profile, ignore_errors=True)
