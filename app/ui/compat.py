"""Work around a PySide6 defect: on Python < 3.12, PySide6 6.12.0 drops a reference to None
each time a C++ function returning void is called, until Python aborts with "none_dealloc".

Python 3.12 made None immortal (PEP 683), so the bug only shows on older interpreters. The
check below measures the leak instead of trusting version numbers; when it is present, None
gets a reference count no program can exhaust, which is what 3.12 does. pyproject.toml excludes
6.12.0 (it also leaks True/False, which this cannot cover); the guard stays for environments
that bring their own PySide6, such as a distribution's packages.
"""

from __future__ import annotations

import ctypes
import sys

_IMMORTAL = 1 << 40


def none_refcount_leaks() -> bool:
    """True if calling a void Qt method loses references to None."""
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(256):
        probe.setObjectName("probe")
    return sys.getrefcount(None) < before - 128


def guard_none_refcount() -> bool:
    """Make None effectively immortal when this PySide6 leaks it; True if applied."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    if not none_refcount_leaks():
        return False
    ctypes.c_ssize_t.from_address(id(None)).value += _IMMORTAL
    return True


APPLIED = guard_none_refcount()
