"""The parser worker process seen from the caller: requests pipelined, results in order.

A file that crashes, hangs or balloons the worker costs only that file: the worker is killed
and restarted, the file is reported as failed with the reason (``parsing``), and the run goes
on. While the worker has no answer, the caller may do its own work (``on_idle``).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection
from typing import Any

from app.core.ingest.failures import FailureKind
from app.core.ingest.parsing import (
    PAGE,
    READ,
    STARTED,
    STARTUP_TIMEOUT_S,
    ParseLimits,
    ParseRequest,
    ParseResult,
    failed,
    run_worker,
    start_method,
    timeout_reason,
)


class ParserPool:
    """One worker process; ``parse_many`` yields results in request order."""

    def __init__(self, limits: ParseLimits | None = None, depth: int = 3) -> None:
        self.limits = limits or ParseLimits()
        self.depth = depth
        self._ctx: Any = mp.get_context(start_method("spawn"))
        self._proc: Any = None
        self._conn: Connection | None = None
        self.on_page: Callable[[str, int, int], None] | None = None  # (path, done, total)
        self.on_read: Callable[[str, int, int], None] | None = None  # (path, page, pages)
        # Called while the worker has no answer yet: the caller's own work, one slice at a
        # time (True: it did some, look again), so neither side waits for the other.
        self.on_idle: Callable[[], bool] | None = None

    def _start(self) -> Connection:
        """The connection to the worker, started if none is running."""
        if self._conn is None:
            parent, child = self._ctx.Pipe()
            proc = self._ctx.Process(
                target=run_worker, args=(child, self.limits), daemon=True, name="footnotes-parser"
            )
            try:
                proc.start()
            finally:
                child.close()
            self._proc, self._conn = proc, parent
        return self._conn

    def _kill(self) -> int | None:
        """Kill the worker (if any); returns its exit code."""
        code = None
        if self._proc is not None:
            self._proc.kill()
            self._proc.join(5)
            code = self._proc.exitcode
        if self._conn is not None:
            self._conn.close()
        self._proc, self._conn = None, None
        return code

    def parse_many(self, requests: Iterable[ParseRequest]) -> Iterator[ParseResult]:
        """Parse each (path, known hash[, folder it must lie in]) request, in request order."""
        pending: deque[ParseRequest] = deque()
        if self._proc is not None and not self._proc.is_alive():
            self._kill()  # died while idle (killed, out of memory): not any file's fault
        try:
            yield from self._pipeline(iter(requests), pending)
        finally:
            if pending:  # abandoned midway (Ctrl-C, cancel): stale answers must not leak
                self._kill()

    def _pipeline(
        self, todo: Iterator[ParseRequest], pending: deque[ParseRequest]
    ) -> Iterator[ParseResult]:
        """Keep ``depth`` requests in flight; a crash or time-out fails the file at the head."""
        exhausted = False
        retried = False  # the head was already resent once after a worker died before it
        while True:
            while not exhausted and len(pending) < self.depth:
                try:
                    req = next(todo)
                except StopIteration:
                    exhausted = True
                    break
                pending.append(req)
                self._send(req)
            if not pending:
                return
            conn = self._start()
            path = pending[0][0]
            failure: tuple[str, FailureKind] | None = None
            began = False
            try:
                if not conn.poll(STARTUP_TIMEOUT_S) or conn.recv() != STARTED:
                    failure = "the document reader could not start", FailureKind.READER_UNAVAILABLE
                else:
                    began = True
                    answer = self._answer(conn, path)
                    if answer is None:
                        failure = timeout_reason(self.limits.timeout_s), FailureKind.TIMEOUT
                    else:
                        result = answer
            except (EOFError, OSError):
                failure = "the document reader crashed on it", FailureKind.PARSER_CRASH
            if failure is not None:
                code = self._kill()
                reason, kind = failure
                crashed = kind is FailureKind.PARSER_CRASH
                if not began and not retried and crashed:
                    # It died before it began this file (killed while idle, or dying as we
                    # sent): not the file's fault, so a fresh worker gets everything pending.
                    retried = True
                    for req in pending:
                        self._send(req)
                    continue
                if code is not None and code < 0 and crashed:
                    reason += f" (signal {-code})"
                result = failed(path, reason, kind)
                pending.popleft()
                for req in pending:  # resend the rest to a fresh worker
                    self._send(req)
                retried = False
                yield result
                continue
            pending.popleft()
            retried = False
            yield result

    def _answer(self, conn: Connection, path: str) -> ParseResult | None:
        """The worker's result for ``path``, or None when it ran out of time.

        The limit is ``timeout_s`` from the start, extended by ``ocr_page_s`` from each OCR
        page reported, so a long scan gets time per page while a stuck page is still caught.
        """
        deadline = time.monotonic() + self.limits.timeout_s
        while True:
            ready = conn.poll(0)  # an answer that came in time counts, however late it is read
            if not ready and time.monotonic() < deadline and self.on_idle and self.on_idle():
                continue
            if not ready and not conn.poll(max(0.0, deadline - time.monotonic())):
                return None
            message = conn.recv()
            if isinstance(message, tuple) and message and message[0] == PAGE:
                deadline = max(deadline, time.monotonic() + self.limits.ocr_page_s)
                if self.on_page is not None:
                    self.on_page(path, message[1], message[2])
                continue
            if isinstance(message, tuple) and message and message[0] == READ:
                if self.on_read is not None:
                    self.on_read(path, message[1], message[2])
                continue
            return message

    def _send(self, req: ParseRequest) -> None:
        """Send a request to the worker, starting one if needed."""
        # If the worker died, reading its next answer fails and the file at the head is blamed.
        with contextlib.suppress(OSError):
            self._start().send(req)

    def close(self) -> None:
        """Ask the worker to finish, then make sure it is gone."""
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.send(None)
            if self._proc is not None:
                self._proc.join(2)
        self._kill()

    def __enter__(self) -> ParserPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
