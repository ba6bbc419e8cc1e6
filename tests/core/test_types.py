"""The dataclasses that flow through the engine, and the JSON ``search --json`` prints of them."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest

from app.core.types import Chunk, Hit, Page, Support


def test_a_hit_prints_every_field_of_the_search_contract_rounded() -> None:
    hit = Hit(
        rank=1,
        path=os.fsdecode(b"/docs/caf\xe9.txt"),
        page=3,
        start=10,
        end=52,
        text="The chain lasts 3,000 km.",
        score=0.123456789,
        chunk_id="abc",
        heading="Maintenance",
        dense_score=0.987654321,
        lexical_score=None,
        dense_rank=1,
        text_hash="not printed",
        ocr=True,
    )
    out = hit.to_json()
    assert out["score"] == 0.123457 and out["dense_score"] == 0.987654
    assert out["lexical_score"] is None and out["lexical_rank"] is None
    assert out["path"] == hit.path  # the key, byte for byte
    assert out["display_path"] == "/docs/caf\ufffd.txt"  # what a person reads
    assert out["ocr"] is True and "text_hash" not in out
    assert set(out) == {
        "rank", "path", "display_path", "page", "start", "end", "text", "score", "chunk_id",
        "heading", "dense_score", "lexical_score", "dense_rank", "lexical_rank", "ocr",
    }  # fmt: skip
    json.dumps({k: v for k, v in out.items() if k != "path"})  # the rest encodes as is


def test_support_prints_its_features_rounded_and_whether_the_index_is_still_building() -> None:
    support = Support(False, 0.333333, "Few passages match.", {"dense_top": 0.456789}, True)
    assert support.to_json() == {
        "supported": False,
        "score": 0.3333,
        "reason": "Few passages match.",
        "building": True,
        "features": {"dense_top": 0.4568},
    }
    assert Support(True, 0.9, "ok").to_json()["building"] is False


def test_pages_and_chunks_cannot_be_changed_once_made() -> None:
    page = Page(1, "text")
    chunk = Chunk("/d/a.txt", None, 0, 4, "text", "h")
    with pytest.raises(dataclasses.FrozenInstanceError):
        page.text = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        chunk.start = 2  # type: ignore[misc]
    assert chunk.context == "" and page.ocr is False
