"""Why a file could not be indexed: the kind the engine decides by (which failed files the
next sync reads again) and the reason a person reads, kept apart.

``tests/core/index/test_failure_kinds.py`` shows the kinds produced where files fail and
stored in the manifest; here is the rule they decide.
"""

from __future__ import annotations

import pytest

from app.core.config import Settings
from app.core.ingest.failures import (
    LIMIT_SETTINGS,
    RETRIED_KINDS,
    DocumentError,
    FailureKind,
    LoadError,
    UnsupportedFile,
    is_retried,
)
from app.core.ingest.skips import SkipReason

K = FailureKind
NOW = {K.TOO_LARGE: "100", K.TOO_MANY_PAGES: "5000", K.TIMEOUT: "120", K.OCR_OFF: "off"}


@pytest.mark.parametrize("kind", sorted(RETRIED_KINDS))
def test_failures_cured_outside_the_file_are_read_again_every_sync(kind: FailureKind) -> None:
    assert is_retried(kind, None, NOW)


@pytest.mark.parametrize(
    "kind", [K.DAMAGED, K.ENCRYPTED, K.PARSER_CRASH, K.UNSUPPORTED, K.MEMORY, K.UNKNOWN, None]
)
def test_failures_of_the_file_itself_wait_for_it_to_change(kind: FailureKind | None) -> None:
    assert not is_retried(kind, None, NOW)


def test_a_limit_failure_is_read_again_once_its_setting_has_a_new_value() -> None:
    assert not is_retried(K.TOO_LARGE, "100", NOW)
    assert is_retried(K.TOO_LARGE, "40", NOW)  # max_file_mb was raised from 40 to 100
    assert is_retried(K.OCR_OFF, "off", {**NOW, K.OCR_OFF: "on"})  # OCR was turned on
    assert is_retried(K.TOO_LARGE, "100", {})  # the limit is off now
    assert set(LIMIT_SETTINGS.values()) <= set(Settings().to_dict())  # settings that exist


def test_the_reason_is_what_a_person_reads_and_the_kind_defaults_by_error() -> None:
    damaged = LoadError("the file is empty")
    assert str(damaged) == damaged.reason == "the file is empty"
    assert damaged.kind is K.DAMAGED
    assert LoadError("too big", K.TOO_LARGE).kind is K.TOO_LARGE
    assert isinstance(damaged, DocumentError)


def test_unsupported_data_is_a_failure_unless_it_is_skipped_on_purpose() -> None:
    in_a_text_file = UnsupportedFile("it holds binary data, not text")
    assert in_a_text_file.kind is K.UNSUPPORTED and in_a_text_file.skip is None
    unnamed = UnsupportedFile("it holds binary data, not text", SkipReason.BINARY)
    assert unnamed.skip is SkipReason.BINARY
