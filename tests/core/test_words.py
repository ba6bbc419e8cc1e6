"""One word function for every script (``app.core.text.words``), and the full-text index reads
the same words.

Scripts written with spaces keep their words whole, combining marks included (a Devanagari
vowel sign used to cut "पांडुलिपियाँ" into six pieces); scripts written without spaces are read
as pairs of characters, so a word inside a Japanese or Chinese sentence is found. Each test
checks what SQLite's tokenizer makes of ``index_words`` against ``words``: the two must agree,
or a word that search splits one way would be indexed another.
"""

from __future__ import annotations

import sqlite3
import unicodedata

import pytest

from app.core.index import lexical
from app.core.text import alnum_parts, index_words, query_terms, unspaced, word_alone, words

SENTENCES = {
    "Japanese": "この図書館には古い地図が保管されています。資料番号は四七七一です。",
    "Chinese": "这座博物馆收藏了许多古老的地图和手稿，其中一些已有三百多年的历史。",
    "Korean": "우리 마을 도서관에는 오래된 지도와 사진이 보관되어 있습니다.",
    "Thai": "ห้องสมุดแห่งนี้เก็บรักษาแผนที่โบราณ ผู้เยี่ยมชมต้องจองล่วงหน้า",
    "Russian": "В подвале библиотеки хранятся старинные карты и рукописи.",
    "Arabic": "تحتفظ المكتبة بخرائط قديمة ومخطوطات نادرة من القرن التاسع عشر.",
    "Hindi": "इस पुस्तकालय में पुराने नक्शे और दुर्लभ पांडुलिपियाँ सुरक्षित हैं।",
    "Greek": "Στο υπόγειο φυλάσσονται παλιοί χάρτες και σπάνια χειρόγραφα.",
    "English": "The library's basement keeps old maps, find_opt and FY2018 files (naïve).",
}


def fts_tokens(text: str) -> list[str]:
    """The tokens the full-text index makes of ``text`` (as the index is given it), in order."""
    conn = sqlite3.connect(":memory:")
    conn.execute(f'CREATE VIRTUAL TABLE t USING fts5(x, tokenize="{lexical.TOKENIZE}")')
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    conn.execute("INSERT INTO t(x) VALUES (?)", (index_words(text),))
    return [row[0] for row in conn.execute("SELECT term FROM v ORDER BY offset")]


@pytest.mark.parametrize("script", list(SENTENCES))
def test_the_index_holds_exactly_the_words_search_splits_text_into(script: str) -> None:
    text = SENTENCES[script]
    found = words(text)
    assert all(text[w.start : w.end] == w.text for w in found)
    expected = [t for w in found for t in fts_tokens(w.text)]  # each folded, stemmed
    assert fts_tokens(text) == expected


def test_a_word_inside_a_sentence_without_spaces_is_among_its_words() -> None:
    ja = [w.text for w in words(SENTENCES["Japanese"])]
    assert {"資料", "料番", "番号"} <= set(ja)  # 資料番号, inside "…です。資料番号は…"
    assert "は" in ja and "料番号" not in ja  # kana and kanji part where they meet
    zh = [w.text for w in words(SENTENCES["Chinese"])]
    assert "手稿" in zh and zh.count("地图") == 1
    # a pair overlaps the next by one character; a word of one character stays itself
    assert [w.text for w in words("猫")] == ["猫"]
    pairs = words("資料番号")
    assert [(w.start, w.end) for w in pairs] == [(0, 2), (1, 3), (2, 4)]


def test_words_of_scripts_with_spaces_stay_whole() -> None:
    assert [w.text for w in words(SENTENCES["Hindi"])][6] == "दुर्लभ"
    assert "पांडुलिपियाँ" in [w.text for w in words(SENTENCES["Hindi"])]
    assert "ومخطوطات" in [w.text for w in words(SENTENCES["Arabic"])]
    assert "χειρόγραφα" in [w.text for w in words(SENTENCES["Greek"])]
    english = [w.text for w in words(SENTENCES["English"])]
    assert english[:4] == ["The", "library", "s", "basement"]
    assert {"find_opt", "FY2018", "naïve"} <= set(english)
    # an accent typed apart (macOS file names, some PDFs) stays in its word
    decomposed = unicodedata.normalize("NFD", "café")
    assert [w.text for w in words(decomposed + " noir")] == [decomposed, "noir"]


def test_the_index_is_given_spaced_text_unchanged() -> None:
    for script in ("Russian", "Arabic", "Hindi", "Greek", "English"):
        assert index_words(SENTENCES[script]) == SENTENCES[script]
    assert index_words("資料番号は") == "資料 料番 番号 は"
    assert index_words("Python入門 2024年") == "Python 入門 2024 年"


def test_query_terms_keep_words_and_drop_particles() -> None:
    assert query_terms("資料番号は何ですか") == ["資料", "料番", "番号", "何", "です", "すか"]
    assert query_terms("What is the FY2018 capex?") == ["fy2018", "capex"]
    assert word_alone("猫") and word_alone("책") and not word_alone("は")
    assert unspaced("東京") and unspaced("ห้อง") and not unspaced("Москва दुर्लभ")
    # a word's letter and digit parts (searched too): marks stay with their letters
    assert alnum_parts("FY2018") == ["FY", "2018"] and alnum_parts("find_opt") == ["find", "opt"]
    assert alnum_parts("दुर्लभ") == ["दुर्लभ"] and alnum_parts("แห่ง") == ["แห่ง"]


def test_chinese_and_japanese_sentences_end_without_a_space() -> None:
    from app.core.text import sentence_spans

    text = SENTENCES["Japanese"] + "这是什么？我不知道。"
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "この図書館には古い地図が保管されています。",
        "資料番号は四七七一です。",
        "这是什么？",
        "我不知道。",
    ]
    hindi = "इस पुस्तकालय में नक्शे हैं। आगंतुकों को आरक्षण करना होगा।"
    assert len(sentence_spans(hindi)) == 2
    assert len(sentence_spans("It costs 3.5 dollars. See e.g. the list.")) == 2
