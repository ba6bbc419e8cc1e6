"""Settings dataclass, the data directory rule, and atomic saving of settings.json.

Each setting's type and range is part of its annotation and checked by pydantic, one key at
a time: a bad key costs that key (its default is used and the problem recorded), never the
file; a file that cannot be read as JSON at all is kept and copied to ``settings.json.bak``
before anything overwrites it.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import tempfile
import typing
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import platformdirs
from pydantic import AfterValidator, ConfigDict, Field, TypeAdapter, ValidationError

from app.core.private import secure

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


# The types of the schema (pydantic checks them strictly: "8" is not a number, "*.tmp" is
# not a list of patterns, 1 is not true).
Url = Annotated[str, Field(min_length=1, pattern=r"^\S+$")]  # no spaces: a host, a URL


def host_problem(host: str) -> str | None:
    """Why ``host`` cannot be an Ollama address (None when it can): an http(s) URL or a
    host[:port] with a name and a port from 1 to 65535. Lives here, below every stage, so
    that settings.json, the command line and $OLLAMA_HOST are all checked by this one rule."""
    raw = host.strip()
    if not raw or any(c.isspace() for c in raw):
        return "an address holds no spaces"
    try:
        parts = urllib.parse.urlsplit(raw if "://" in raw else f"http://{raw}")
        parts.hostname  # noqa: B018 - raises for a bracket left open
    except ValueError:
        return (
            "its host is not valid; an IPv6 address is written in brackets, as http://[::1]:11434"
        )
    if parts.scheme not in ("http", "https"):
        return f"it should start with http:// or https://, not {parts.scheme}://"
    if not parts.hostname:
        return "it names no host"
    try:
        port = parts.port
    except ValueError:
        return "its port should be a number from 1 to 65535"
    if port == 0:
        return "its port should be a number from 1 to 65535"
    return None


def _ollama_address(value: str) -> str:
    """The settings check of ``ollama_host``: ``host_problem`` as a validation error."""
    why = host_problem(value)
    if why:
        raise ValueError(f"it is not an Ollama address ({why})")
    return value


OllamaUrl = Annotated[str, Field(min_length=1), AfterValidator(_ollama_address)]
Name = Annotated[str, Field(min_length=1)]  # a model's name or folder
Count = Annotated[int, Field(ge=1)]
Seconds = Annotated[float, Field(gt=0, le=86_400)]


def _one_of(*choices: str) -> Callable[[str], str]:
    """A check that a string is one of ``choices`` (the field stays a plain ``str``)."""

    def check(value: str) -> str:
        if value not in choices:
            raise ValueError("it should be " + " or ".join(repr(c) for c in choices))
        return value

    return check


Backend = Annotated[str, AfterValidator(_one_of("auto", "onnx-int8", "torch"))]
Mode = Annotated[str, AfterValidator(_one_of("flag", "refuse"))]


@dataclass(frozen=True)
class SettingProblem:
    """One key of settings.json that was not used, and why (its default was used instead);
    ``key`` is empty when the whole file could not be used."""

    key: str
    reason: str

    def __str__(self) -> str:
        where = f"settings.json: {self.key}" if self.key else "settings.json"
        return f"{where}: {self.reason}"


@dataclass
class Settings:
    """Everything a person can change; saved as JSON in the data directory.

    ``problems`` lists what ``load`` could not use (bad keys, a file that is not JSON); it is
    never saved.
    """

    ollama_host: OllamaUrl = DEFAULT_OLLAMA_HOST
    ollama_model: Name = "llama3.2"
    chroma_url: Url | None = None
    embedding_model: Name = DEFAULT_MODEL
    embedding_backend: Backend = "auto"  # "auto" (int8 ONNX if available), "onnx-int8", "torch"
    top_k: Annotated[int, Field(ge=1, le=50)] = 8  # the Settings window offers 1 to 50
    unsupported_mode: Mode = "flag"  # "flag": answer but flag; "refuse": don't ask the model
    ignore_patterns: list[Annotated[str, Field(min_length=1)]] = field(
        default_factory=lambda: list(DEFAULT_IGNORE)
    )
    max_file_mb: Annotated[float, Field(gt=0, le=1_000_000)] = 100.0
    max_pages: Count = 5000
    max_chunks_per_file: Count = 20000
    parse_timeout_s: Seconds = 120.0
    request_timeout_s: Seconds = 120.0
    busy_timeout_s: Seconds = 30.0  # how long to wait for a database another program holds
    ocr_enabled: bool = True  # read scanned PDF pages and images by OCR (Tesseract)
    history_enabled: bool = True  # keep threads of questions and answers (threads.sqlite3)
    rewrite_followups: bool = True  # ask the model for a standalone query for a follow-up
    rewrite_timeout_s: Seconds = 8.0  # the rewrite's own time limit; then the merged query
    # an Ollama model that judges each answer sentence against its passage ("bespoke-minicheck");
    # empty: the built-in checks
    grounding_model: str = ""
    problems: list[SettingProblem] = field(
        default_factory=list, compare=False, repr=False, metadata={"stored": False}
    )

    @classmethod
    def load(cls, path: Path) -> Settings:
        """Read settings: defaults for missing keys, and for bad ones with a problem recorded.

        A file that cannot be read or is not a JSON object gives the defaults, with one
        problem saying so; the file itself is left alone (``save`` backs it up first).
        """
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return cls()
        except OSError as exc:
            why = exc.strerror or str(exc)
            return cls(problems=[_whole_file(path, f"it could not be read ({why})")])
        return cls.parse(path, data)

    @classmethod
    def parse(cls, path: Path, data: bytes) -> Settings:
        """Settings from the bytes of the file at ``path`` (``load`` without the reading)."""
        try:
            raw = json.loads(data.decode("utf-8-sig"))
        except UnicodeDecodeError:
            return cls(problems=[_whole_file(path, "it is not UTF-8 text")])
        except ValueError as exc:
            return cls(problems=[_whole_file(path, f"it is not valid JSON ({exc})")])
        if not isinstance(raw, dict):
            what = type(raw).__name__.replace("dict", "object").replace("NoneType", "null")
            return cls(problems=[_whole_file(path, f"it holds a JSON {what}, not an object")])
        return cls.from_dict(raw)

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Settings:
        """Settings from a mapping of keys to JSON values, checking each key against the schema."""
        values: dict[str, Any] = {}
        problems: list[SettingProblem] = []
        adapters = _adapters()
        for key, value in raw.items():
            adapter = adapters.get(key)
            if adapter is None:
                problems.append(SettingProblem(key, "not a setting this version knows; ignored"))
                continue
            try:
                values[key] = adapter.validate_python(value)
            except ValidationError as exc:
                problems.append(SettingProblem(key, _why(exc, value, _default(key))))
        return cls(**values, problems=problems)

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
        """Write atomically; a file there that ``load`` had problems with is first copied to
        ``settings.json.bak`` beside it (an unreadable one is never overwritten)."""
        _back_up_if_bad(path)
        atomic_write_text(path, json.dumps(self.to_dict(), indent=2) + "\n")

    def to_dict(self) -> dict[str, Any]:
        """The stored settings as JSON values (``problems`` left out)."""
        values = dataclasses.asdict(self)
        return {f.name: values[f.name] for f in _stored_fields()}


@functools.cache
def _adapters() -> dict[str, TypeAdapter[Any]]:
    """A strict pydantic validator for each stored setting, from its annotation."""
    hints = typing.get_type_hints(Settings, include_extras=True)
    strict = ConfigDict(strict=True)
    return {f.name: TypeAdapter(hints[f.name], config=strict) for f in _stored_fields()}


def _stored_fields() -> list[dataclasses.Field[Any]]:
    """The fields saved in settings.json (all but ``problems``)."""
    return [f for f in dataclasses.fields(Settings) if f.metadata.get("stored", True)]


def _default(key: str) -> Any:
    return getattr(_DEFAULTS, key)


def _why(exc: ValidationError, value: Any, default: Any) -> str:
    """Pydantic's first complaint as a sentence, with the value found and the default used."""
    error = exc.errors(include_url=False)[0]
    where = "".join(f"[{p}]" for p in error["loc"] if isinstance(p, int))
    message = _MESSAGES.get(error["type"]) or error["msg"].removeprefix("Value error, ")
    message = message.replace("Input should", "it should").replace("String should", "it should")
    item = f" (item {where})" if where else ""
    return f"{message}{item}, not {_short(value)}; using the default {_short(default)}"


def _short(value: Any, limit: int = 40) -> str:
    """A JSON value as it reads in the file, cut to ``limit`` characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 4] + " ..."


_MESSAGES = {
    "string_too_short": "it should not be empty",
    "string_pattern_mismatch": "it should have no spaces",
    "list_type": "it should be a list (one string per item), never a single string",
}


def _whole_file(path: Path, why: str) -> SettingProblem:
    """The problem of a file none of whose keys could be used."""
    kept = f"{path} is kept and copied to {backup_path(path).name} before it is saved over"
    return SettingProblem("", f"{why}; every setting has its default, and {kept}")


def backup_path(path: Path) -> Path:
    """Where ``save`` keeps a copy of a settings file it had problems with."""
    return path.with_name(path.name + ".bak")


def _back_up_if_bad(path: Path) -> None:
    """Copy a settings file that does not load cleanly to ``backup_path`` (raises OSError
    when it cannot be read, so it is not overwritten unseen)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    if Settings.parse(path, data).problems:
        atomic_write_bytes(backup_path(path), data)


def atomic_write_text(path: Path, text: str) -> None:
    """Write to a temporary file in the same folder, fsync, then rename over the target."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """``atomic_write_text`` for bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_DEFAULTS = Settings()


@dataclass
class DataDir:
    """Where each piece of state lives inside the one data directory.

    ``tightened`` lists what ``ensure`` found readable by other users and made owner-only.
    """

    root: Path
    tightened: list[Path] = field(default_factory=list, compare=False, repr=False)

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
        """Create the data directory owner-only (0700, parents made too), tighten one whose
        modes are wider, and make what this process creates from now on 0600 (``private``)."""
        self.tightened = secure(self.root)
        return self

    def load_settings(self) -> Settings:
        return Settings.load(self.settings_path)
