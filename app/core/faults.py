"""Where a test makes the index fail on purpose: a plan the engine is given, empty when shipped.

The indexer and its embedding stage tell their ``Faults`` after each index write (a SQLite
transaction or a vector-store call), naming what was written. The shipped plan does nothing;
a test passes its own, which may count the writes, kill the process after the N-th one (the
crash tests), fill the disk there or raise ``ENOSPC`` (the full-disk tests). Nothing here
reads the environment: a plan exists only where a caller built one.
"""

from __future__ import annotations


class Faults:
    """The plan of faults for one engine; this base class is the shipped one, and does nothing."""

    def wrote(self, what: str) -> None:
        """One index write finished: ``what`` names it (``file``, ``vectors``, ``pending``,
        ``removed``, ``moved``, ``skipped``, ``unchanged``, ``deleted``, ``listed``)."""


NO_FAULTS = Faults()
