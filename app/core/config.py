"""Settings dataclass, the data directory rule, and atomic saving of settings.json."""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

APP_NAME = "footnotes"
DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"

DEFAULT_IGNORE = [
    ".*",  # hidden files and folders, .git included
    "node_modules",
    "__pycache__",
    "*.pyc",
    "*~",
    "*.swp",
    "*.swo",
    "*.swx",
    "*.tmp",
    "*.temp",
    "*.part",
    "*.partial",
    "*.crdownload",
    "*.download",
    "~$*",  # Office lock files
    ".~lock.*#",  # LibreOffice lock files
    "#*#",  # Emacs autosave
    "4913",  # vim's write test file
]


def resolve_data_dir(cli_value: str | os.PathLike[str] | None = None) -> Path:
    """``--data-dir``, else ``$FOOTNOTES_DATA_DIR``, else the platform's user data dir."""
    raw = cli_value or os.environ.get("FOOTNOTES_DATA_DIR")
    path = Path(raw) if raw else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    return path.expanduser().resolve()


@dataclass
class Settings:
    """Everything a person can change; saved as JSON in the data directory."""

    ollama_host: str = DEFAULT_OLLAMA_HOST
    ollama_model: str = "llama3.2"
    chroma_url: str | None = None
    embedding_model: str = DEFAULT_MODEL
    embedding_backend: str = "auto"  # "auto" (int8 ONNX if available), "onnx-int8", "torch"
    top_k: int = 8
    unsupported_mode: str = "flag"  # "flag": answer but flag; "refuse": don't ask the model
    ignore_patterns: list[str] = field(default_factory=lambda: list(DEFAULT_IGNORE))
    max_file_mb: float = 100.0
    max_pages: int = 5000
    max_chunks_per_file: int = 20000
    parse_timeout_s: float = 120.0
    request_timeout_s: float = 120.0
    busy_timeout_s: float = 30.0  # how long to wait for a database another program holds
    ocr_enabled: bool = True  # read scanned PDF pages and images by OCR (Tesseract)
    history_enabled: bool = True  # keep threads of questions and answers (threads.sqlite3)
    rewrite_followups: bool = True  # ask the model for a standalone query for a follow-up
    rewrite_timeout_s: float = 8.0  # the rewrite's own time limit; then the merged query

    @classmethod
    def load(cls, path: Path) -> Settings:
        """Read settings, ignoring unknown keys and keeping defaults for missing ones."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError):
            return cls()
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})

    def with_overrides(
        self, *, ollama_host: str | None = None, chroma_url: str | None = None
    ) -> Settings:
        """A copy with the command line's --ollama-host / --chroma-url applied (empty: kept)."""
        if not (ollama_host or chroma_url):
            return self
        return dataclasses.replace(
            self,
            ollama_host=ollama_host or self.ollama_host,
            chroma_url=chroma_url or self.chroma_url,
        )

    def save(self, path: Path) -> None:
        atomic_write_text(path, json.dumps(dataclasses.asdict(self), indent=2) + "\n")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def atomic_write_text(path: Path, text: str) -> None:
    """Write to a temporary file in the same folder, fsync, then rename over the target."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass
class DataDir:
    """Where each piece of state lives inside the one data directory."""

    root: Path

    def __post_init__(self) -> None:
        self.root = Path(self.root)

    @property
    def settings_path(self) -> Path:
        return self.root / "settings.json"

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.sqlite3"

    @property
    def chroma_path(self) -> Path:
        return self.root / "chroma"

    @property
    def models_path(self) -> Path:
        return self.root / "models"

    @property
    def threads_path(self) -> Path:
        return self.root / "threads.sqlite3"

    @property
    def ocr_cache_path(self) -> Path:
        return self.root / "ocr-cache"

    @property
    def lock_path(self) -> Path:
        return self.root / "writer.lock"

    def ensure(self) -> DataDir:
        self.root.mkdir(parents=True, exist_ok=True)
        return self

    def load_settings(self) -> Settings:
        return Settings.load(self.settings_path)
