"""Small facts about an index kept in the manifest's ``meta`` table.

- Which embedding model built its vectors. The vector collection is named after the model's
  id and dimension; knowing both without loading the model lets a rescan that embeds nothing,
  ``status`` and ``doctor`` open the store in well under a second. The model loads only when
  there is text to encode (a question included); its real id then wins over this record.
- What the vector store looked like when it was last found to match the manifest (no vector
  missing, none orphaned), so an unchanged rescan skips comparing every id.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from app.core.index.transaction import transaction

STORE_VERIFIED = "store_verified"


@dataclass(frozen=True)
class ModelRecord:
    """The id and vector size a configured model (name and backend) loaded as last time."""

    model_id: str
    dim: int


def get(conn: sqlite3.Connection, key: str) -> str | None:
    """The stored value, or None (unset, or no meta table yet)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else str(row[0])


def put(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    """Set (or, with None, delete) a value in one small transaction; a data directory that
    cannot be written keeps going without it."""
    try:
        with transaction(conn):
            if value is None:
                conn.execute("DELETE FROM meta WHERE key = ?", (key,))
            else:
                conn.execute(
                    "INSERT INTO meta(key, value) VALUES (?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )
    except sqlite3.OperationalError:  # read-only database, full disk: only speed is lost
        return


def _model_key(name: str, backend: str) -> str:
    return f"embedding:{backend}:{name}"


def model(conn: sqlite3.Connection, name: str, backend: str) -> ModelRecord | None:
    """What this model setting loaded as, or None (never loaded here, or unreadable)."""
    found = get(conn, _model_key(name, backend))
    if found is None:
        return None
    try:
        value = json.loads(found)
        return ModelRecord(str(value["model_id"]), int(value["dim"]))
    except (ValueError, KeyError, TypeError):
        return None  # the model is loaded and the record written again


def remember_model(conn: sqlite3.Connection, name: str, backend: str, rec: ModelRecord) -> None:
    """Record what this model setting loaded as."""
    put(conn, _model_key(name, backend), json.dumps({"model_id": rec.model_id, "dim": rec.dim}))
