"""Small facts kept in the manifest's ``meta`` table (real SQLite): which embedding model built
the vectors, so ``status`` and a rescan that embeds nothing need not load it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.index import meta
from app.core.index.manifest import Manifest
from app.core.index.meta import ModelRecord


@pytest.fixture
def manifest(tmp_path: Path) -> Iterator[Manifest]:
    m = Manifest(tmp_path / "manifest.sqlite3")
    yield m
    m.close()


def test_a_value_is_set_replaced_and_deleted(manifest: Manifest) -> None:
    assert meta.get(manifest.conn, meta.STORE_VERIFIED) is None
    meta.put(manifest.conn, meta.STORE_VERIFIED, "12 ids")
    meta.put(manifest.conn, meta.STORE_VERIFIED, "13 ids")
    assert meta.get(manifest.conn, meta.STORE_VERIFIED) == "13 ids"
    meta.put(manifest.conn, meta.STORE_VERIFIED, None)
    assert meta.get(manifest.conn, meta.STORE_VERIFIED) is None


def test_the_model_record_is_kept_per_name_and_backend_across_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "manifest.sqlite3"
    first = Manifest(path)
    meta.remember_model(first.conn, "all-MiniLM-L6-v2", "torch", ModelRecord("minilm-fp32", 384))
    first.close()
    again = Manifest(path)
    try:
        assert meta.model(again.conn, "all-MiniLM-L6-v2", "torch") == ModelRecord(
            "minilm-fp32", 384
        )
        assert meta.model(again.conn, "all-MiniLM-L6-v2", "onnx-int8") is None
    finally:
        again.close()


def test_a_damaged_model_record_is_as_none_so_the_model_is_loaded_again(
    manifest: Manifest,
) -> None:
    meta.put(manifest.conn, "embedding:torch:m", '{"model_id": "x"}')  # no dim
    assert meta.model(manifest.conn, "m", "torch") is None
    meta.put(manifest.conn, "embedding:torch:m", "not json")
    assert meta.model(manifest.conn, "m", "torch") is None


def test_a_database_without_the_table_or_that_cannot_be_written_loses_only_speed(
    tmp_path: Path,
) -> None:
    bare = sqlite3.connect(tmp_path / "old.sqlite3", isolation_level=None)
    assert meta.get(bare, "anything") is None
    bare.close()
    Manifest(tmp_path / "m.sqlite3").close()
    readonly = Manifest(tmp_path / "m.sqlite3", readonly=True)
    try:
        meta.put(readonly.conn, meta.STORE_VERIFIED, "1")  # no error: nothing is kept
        assert meta.get(readonly.conn, meta.STORE_VERIFIED) is None
    finally:
        readonly.close()
