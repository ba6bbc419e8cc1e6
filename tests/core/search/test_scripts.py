"""A word in any script finds its file: a small dev set of known items in eight scripts.

Two short files per script (an archive, a market or a station: the same topics in every
script, so only the words tell the files apart) and four legacy-encoded ones, among English
notes, in one index. Each question is a word or a phrase copied from the middle of one file
("資料番号" from "…保管されています。資料番号は四七七一です。…"), and that file must come first.
The embedding model reads English, so in these scripts the lexical index must find the word:
before it read Han, kana and Thai in pairs of characters, a word inside a Japanese or Chinese
sentence matched nothing (the tokenizer made one token of the whole run), and Hindi and Thai
words were cut at every vowel sign.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.helpers import paragraph

# name: (encoding, text, [words or phrases copied from the middle of the text])
FILES = {
    "ja_archive.txt": (
        "utf-8",
        "市立図書館の地下書庫には、明治時代の古地図や写真が保管されています。"
        "資料番号は四七七一です。閲覧には事前の予約が必要です。",
        ["資料番号", "古地図", "地下書庫"],
    ),
    "ja_station.txt": (
        "utf-8",
        "駅の東口には新しいバスターミナルができました。始発のバスは午前六時に出発します。"
        "切符は自動券売機で購入できます。",
        ["バスターミナル", "自動券売機", "始発のバス"],
    ),
    "zh_archive.txt": (
        "utf-8",
        "这座博物馆收藏了许多古老的地图和手稿，其中一些已有三百多年的历史。参观者需要提前在网上预约。",
        ["手稿", "博物馆", "三百多年的历史"],
    ),
    "zh_market.txt": (
        "utf-8",
        "周末的农贸市场非常热闹，摊主们出售新鲜的蔬菜和水果。很多居民早上七点就来买菜。",
        ["蔬菜", "农贸市场", "摊主"],
    ),
    "ko_archive.txt": (
        "utf-8",
        "우리 마을 도서관 지하에는 오래된 지도와 사진이 소중히 보관되어 있습니다. "
        "열람을 원하시면 미리 예약해 주십시오.",
        ["보관되어", "오래된 지도와 사진이", "도서관"],
    ),
    "ko_market.txt": (
        "utf-8",
        "시장 입구에 있는 빵집은 매일 아침 일곱 시에 문을 엽니다. "
        "갓 구운 식빵이 가장 인기가 많습니다.",
        ["식빵", "빵집", "일곱 시에"],
    ),
    "th_archive.txt": (
        "utf-8",
        "ห้องสมุดแห่งนี้เก็บรักษาแผนที่โบราณและภาพถ่ายเก่าไว้ในห้องใต้ดิน ผู้เยี่ยมชมต้องจองล่วงหน้า",
        ["แผนที่", "ภาพถ่าย", "ห้องใต้ดิน"],
    ),
    "th_market.txt": (
        "utf-8",
        "ตลาดน้ำเปิดทุกวันเสาร์และอาทิตย์ แม่ค้าขายผลไม้สดและขนมไทยบนเรือ",
        ["ผลไม้", "ขนมไทย", "ตลาดน้ำ"],
    ),
    "ru_archive.txt": (
        "utf-8",
        "В подвале библиотеки хранятся старинные карты и рукописи девятнадцатого века. "
        "Посетителям нужно записаться заранее.",
        ["рукописи", "старинные карты", "девятнадцатого века"],
    ),
    "ru_station.txt": (
        "utf-8",
        "Новый автобусный вокзал открылся у восточного входа. Первый автобус отправляется "
        "в шесть утра, билеты продаются в автоматах.",
        ["вокзал", "автобус отправляется", "продаются в автоматах"],
    ),
    "ar_archive.txt": (
        "utf-8",
        "تحتفظ المكتبة في قبوها بخرائط قديمة ومخطوطات نادرة من القرن التاسع عشر. "
        "يجب على الزوار الحجز مسبقا.",
        ["نادرة", "قبوها", "بخرائط قديمة"],
    ),
    "ar_market.txt": (
        "utf-8",
        "يفتح السوق الشعبي كل يوم جمعة، ويبيع التجار الخضروات الطازجة والفواكه والتوابل.",
        ["التجار", "الخضروات الطازجة", "السوق الشعبي"],
    ),
    "hi_archive.txt": (
        "utf-8",
        "इस पुस्तकालय के तहखाने में पुराने नक्शे और दुर्लभ पांडुलिपियाँ सुरक्षित रखी गई हैं। "
        "आगंतुकों को पहले से आरक्षण करना होगा।",
        ["पांडुलिपियाँ", "नक्शे", "तहखाने"],
    ),
    "hi_market.txt": (
        "utf-8",
        "हर रविवार को गाँव में साप्ताहिक बाज़ार लगता है, जहाँ किसान ताज़ी सब्ज़ियाँ और फल बेचते हैं।",
        ["सब्ज़ियाँ", "साप्ताहिक बाज़ार", "किसान"],
    ),
    "el_archive.txt": (
        "utf-8",
        "Στο υπόγειο της βιβλιοθήκης φυλάσσονται παλιοί χάρτες και σπάνια χειρόγραφα του "
        "δέκατου ένατου αιώνα.",
        ["χειρόγραφα", "παλιοί χάρτες", "βιβλιοθήκης"],
    ),
    "el_market.txt": (
        "utf-8",
        "Η λαϊκή αγορά γίνεται κάθε Σάββατο, όπου οι αγρότες πουλάνε φρέσκα λαχανικά και φρούτα.",
        ["λαχανικά", "λαϊκή αγορά", "αγρότες"],
    ),
    # legacy encodings: read as the text they hold, then found by a word of it
    "ja_weather_sjis.txt": (
        "shift_jis",
        "明日の天気予報によると、午後から強い雨が降るそうです。出かけるときは傘を忘れないでください。",
        ["天気予報", "強い雨"],
    ),
    "zh_subway_gb18030.txt": (
        "gb18030",
        "这个城市的地铁系统非常方便，每天有数百万乘客使用。票价也很便宜，学生还有折扣。",
        ["乘客", "地铁系统"],
    ),
    "ru_theatre_cp1251.txt": (
        "cp1251",
        "Вчера мы ходили в театр и смотрели замечательный спектакль о любви и дружбе. "
        "Билеты купили заранее.",
        ["спектакль", "о любви и дружбе"],
    ),
    "fr_cafe_cp1252.txt": (
        "cp1252",
        "Le café était fermé, alors nous avons déjeuné au marché près de l'église. "
        "Le boulanger nous a vendu des croissants encore chauds.",
        ["déjeuné", "croissants encore chauds"],
    ),
}
pytestmark = pytest.mark.slow  # indexes forty files with the real embedding model

QUESTIONS = [(query, name) for name, (_, _, queries) in FILES.items() for query in queries]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory, embedder):
    """The files among twenty English notes, indexed once."""
    from app.core.engine import Engine

    root = tmp_path_factory.mktemp("scripts")
    docs = root / "docs"
    docs.mkdir()
    rng = random.Random(7)
    for i in range(20):
        (docs / f"note-{i:02}.md").write_text(f"# Note {i}\n\n{paragraph(rng, 80)}\n")
    for name, (encoding, text, _) in FILES.items():
        (docs / name).write_bytes(text.encode(encoding))
    engine = Engine(root / "data", embedder=embedder)
    report = engine.index([str(docs)])
    assert report.files_indexed == 20 + len(FILES) and report.files_failed == 0
    yield engine
    engine.close()


@pytest.mark.parametrize(("query", "name"), QUESTIONS, ids=[q for q, _ in QUESTIONS])
def test_a_word_from_the_middle_of_a_file_finds_that_file_first(engine, query, name) -> None:
    hits = engine.search(query, 3).hits
    assert hits, f"nothing found for {query!r}"
    assert Path(hits[0].path).name == name
    assert query.split()[0] in hits[0].text  # the passage shown holds the word, no mojibake


def test_every_legacy_file_was_read_as_its_own_text(engine) -> None:
    legacy = {n: text for n, (enc, text, _) in FILES.items() if enc != "utf-8"}
    for name, text in legacy.items():
        hits = engine.search(FILES[name][2][0], 1).hits
        assert hits[0].text == text, name
