"""The PySide6 desktop app: thin views over app.core through a small service object."""

from app.ui import compat as _compat  # noqa: F401 - applies the PySide6 None-refcount guard
