"""What a sync tells the outside: its final counts as ``index --json`` prints them (a fixed
contract, DESIGN.md) and the skipped files it counted, by reason."""

from __future__ import annotations

import json

from app.core.index.report import IndexReport
from app.core.index.skipped import SkippedFile

CONTRACT_KEYS = {
    "files_seen", "files_indexed", "files_unchanged", "files_removed", "files_failed",
    "files_skipped", "chunks_total", "chunks_embedded", "chunks_reused", "pages_ocr",
    "seconds", "failures", "unavailable", "not_found", "skipped",
}  # fmt: skip


def test_the_json_report_holds_the_contracts_keys_and_encodes() -> None:
    report = IndexReport(files_seen=3, files_indexed=2, seconds=1.23456)
    report.failures.append(("/d/bad.pdf", "it is damaged"))
    report.unavailable.append(("/mnt/usb", "not found"))
    report.not_found.append("/d/tpyo")
    out = report.to_json()
    assert set(out) == CONTRACT_KEYS
    assert out["seconds"] == 1.235  # the given duration, rounded as the contract prints it
    assert out["failures"] == [{"path": "/d/bad.pdf", "reason": "it is damaged"}]
    assert out["unavailable"] == [{"path": "/mnt/usb", "reason": "not found"}]
    assert out["not_found"] == ["/d/tpyo"]
    json.dumps(out)
    assert "chunks_written" not in out and "failed_unchanged" not in out  # internal counts


def test_skipped_files_are_counted_once_each_and_summarised_by_reason() -> None:
    report = IndexReport()
    for name, reason, kind in [
        ("a.so", "binary", ".so"),
        ("b.so", "binary", ".so"),
        ("c.mo", "binary", ".mo"),
        ("d.zip", "format", ".zip"),
    ]:
        report.skip(SkippedFile(f"/d/{name}", 1, 1, reason, kind))
    assert report.files_skipped == 4
    binary, archives = report.to_json()["skipped"]
    assert (binary["reason"], binary["count"], binary["types"]) == (
        "binary",
        3,
        {".so": 2, ".mo": 1},
    )
    assert binary["label"] == "3 unknown binary"
    assert archives["examples"] == ["/d/d.zip"]
