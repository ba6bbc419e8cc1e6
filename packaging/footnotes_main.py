"""Entry script of the PyInstaller build: ``app.cli:main`` behind multiprocessing's freeze support.

The parser worker (and any other child process) is started with the "spawn" method, which in
a frozen app re-runs this executable with ``--multiprocessing-fork``; ``freeze_support`` turns
that run into the child instead of a second copy of the app.
"""

from __future__ import annotations

import multiprocessing
import os
import sys


def _restore_library_path() -> None:
    """Give programs we launch (xdg-open, PDF viewers) the caller's LD_LIBRARY_PATH, not ours."""
    if not getattr(sys, "frozen", False):
        return
    # The dynamic linker read the bundle's path at start-up; changing it now only affects
    # child processes, which must not load the bundle's copies of system libraries.
    original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is not None:
        os.environ["LD_LIBRARY_PATH"] = original
    else:
        os.environ.pop("LD_LIBRARY_PATH", None)


if __name__ == "__main__":
    multiprocessing.freeze_support()
    _restore_library_path()
    from app.cli import main

    sys.exit(main())
