"""Legacy text encodings are read as the text they hold, not as mojibake.

Files with no BOM that are not UTF-8 go to charset-normalizer (``app.core.ingest.decoding``):
cp1251 Russian, Shift-JIS Japanese and GB18030 Chinese are found by their own words through
the real command line, as are cp1252 French and Latin-1 German. A file no encoding reads as a
whole is still indexed, with a warning that ``footnotes status`` lists.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.ingest.decoding import decode_bytes
from app.core.ingest.parsing import ParseLimits, parse_file
from tests.helpers import footnotes
from tests.hostile_corpus import MIXED_ENCODINGS

# name: (encoding, text, a query of the file's own words, a phrase the hit must hold)
TEXTS = {
    "moscow.txt": (
        "cp1251",
        "Москва — столица России. Город основан в двенадцатом веке князем Юрием "
        "Долгоруким. Сегодня здесь живут миллионы людей, работают театры, музеи и "
        "университеты.",
        "Долгоруким",
        "князем Юрием",
    ),
    "tokyo.md": (
        "shift_jis",
        "東京は日本の首都です。江戸時代には将軍の城下町として栄えました。"
        "現在では世界有数の大都市であり、多くの人々が暮らしています。",
        "江戸時代には将軍の城下町として栄えました",
        "現在では世界有数の大都市であり",
    ),
    "beijing.txt": (
        "gb18030",
        "北京是中华人民共和国的首都。这座城市有三千多年的历史，故宫和长城吸引了无数游客。"
        "北京大学和清华大学都位于这里。",
        "北京大学和清华大学都位于这里",
        "故宫和长城吸引了无数游客",
    ),
    "cafe.txt": (
        "cp1252",
        "Le café de la rue Saint-Honoré ouvre à huit heures. « Voilà », dit l’écrivain — "
        "il préfère le thé. Les crêpes y sont délicieuses, même en février.",
        "crêpes délicieuses février",
        "l’écrivain — il préfère le thé",
    ),
    "bruecke.txt": (
        "latin-1",
        "Die Straße führt über die Brücke zum Schloß. Müller und Öztürk wohnen dort seit "
        "Jahren. Grüße aus München: die Äpfel sind reif.",
        "Straße Brücke Schloß",
        "Grüße aus München",
    ),
}
MIXED = "mixed.txt"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The files above and one of mixed encodings, indexed by ``footnotes index``."""
    root = tmp_path_factory.mktemp("encodings")
    data, docs = root / "data", root / "docs"
    data.mkdir()
    docs.mkdir()
    (data / "settings.json").write_text(json.dumps({"embedding_backend": "torch"}))
    for name, (encoding, text, _, _) in TEXTS.items():
        (docs / name).write_bytes(text.encode(encoding))
    (docs / MIXED).write_bytes(MIXED_ENCODINGS)
    proc = footnotes("--data-dir", str(data), "index", str(docs), "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["files_indexed"] == len(TEXTS) + 1 and report["files_failed"] == 0
    return data, docs


@pytest.mark.parametrize("name", list(TEXTS))
def test_a_legacy_file_is_found_by_its_own_words(indexed: tuple[Path, Path], name: str) -> None:
    data, docs = indexed
    encoding, text, query, phrase = TEXTS[name]
    with pytest.raises(UnicodeDecodeError):
        text.encode(encoding).decode("utf-8")  # truly not UTF-8: the legacy path reads it
    proc = footnotes("--data-dir", str(data), "search", query, "-k", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    hits = [h for h in json.loads(proc.stdout)["hits"] if h["lexical_rank"] is not None]
    assert hits, f"no lexical hit for {query!r}"
    assert hits[0]["path"] == str(docs / name)
    assert phrase in hits[0]["text"] and hits[0]["text"] in text  # no mojibake


def test_decided_encodings_carry_no_warning() -> None:
    for encoding, text, _, _ in TEXTS.values():
        decoded = decode_bytes(text.encode(encoding))
        assert decoded.text == text and decoded.warning is None, encoding


def test_an_undecidable_file_is_indexed_and_parsed_with_a_warning(
    indexed: tuple[Path, Path],
) -> None:
    data, docs = indexed
    proc = footnotes("--data-dir", str(data), "search", "Quillfeather ledger", "--json")
    assert json.loads(proc.stdout)["hits"][0]["path"] == str(docs / MIXED)
    result = parse_file(str(docs / MIXED), None, ParseLimits())
    assert result.error is None and result.chunks
    assert result.warning is not None and "could not be decided" in result.warning
    assert parse_file(str(docs / "moscow.txt"), None, ParseLimits()).warning is None


def test_status_lists_the_undecidable_file_with_its_warning(indexed: tuple[Path, Path]) -> None:
    data, docs = indexed
    proc = footnotes("--data-dir", str(data), "status", "--json")
    assert proc.returncode == 0, proc.stderr
    warnings = json.loads(proc.stdout)["warnings"]
    assert [w["path"] for w in warnings] == [str(docs / MIXED)]
    assert "could not be decided with confidence" in warnings[0]["warning"]
    text = footnotes("--data-dir", str(data), "status")
    assert f"warning: {docs / MIXED}: its text encoding could not be decided" in text.stdout


def test_a_file_with_no_text_is_indexed_with_a_warning_that_says_so(tmp_path: Path) -> None:
    """An empty note counted among the indexed files, with nothing to find in it, was named
    nowhere: ``status`` lists it with this warning."""
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "blank.md").write_text("  \n\n\t\n")
    (tmp_path / "note.md").write_text("The orchard ledger lists every pear tree.")
    for name in ("empty.txt", "blank.md"):
        result = parse_file(str(tmp_path / name), None, ParseLimits())
        assert result.error is None and not result.chunks
        assert result.warning == "it holds no text: nothing in it can be found", name
    assert parse_file(str(tmp_path / "note.md"), None, ParseLimits()).warning is None
    (tmp_path / "__init__.py").write_bytes(b"")  # a program's empty module is no news
    assert parse_file(str(tmp_path / "__init__.py"), None, ParseLimits()).warning is None
