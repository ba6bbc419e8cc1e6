"""A word in any script finds its file: ranks of short files in eight scripts (and four legacy
encodings) among real notes, for two checkouts in one run.

Short files in Japanese, Chinese, Korean, Thai, Russian, Arabic, Hindi and Greek (UTF-8), and
in Shift-JIS, GB18030, cp1251 and cp1252, are put among the notes of
``../shared/data/corpus/notes/git`` (or ``--folder``); each checkout indexes the same folder
into a data dir of its own, then searches a word from the middle of each file as
``footnotes search WORD -k 3`` does (one ``search --batch`` process). Printed: the rank of
each file in the top 3 per checkout ("-" when it is not there), and how many come first.

    .venv/bin/python bench/bench_scripts.py \\
        --checkout main=/work/main/.venv/bin/python@/work/wt-39-base [--folder corpus/notes/git]

A checkout is ``NAME=PYTHON@SOURCE``: that interpreter runs ``python -m app`` from SOURCE (so
a worktree without a venv of its own can use another's); this checkout always runs too.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _common import REPO_ROOT, print_table, require_data


@dataclass(frozen=True)
class Sample:
    """A short file: its name, its text, the encoding it is saved in, and the word searched."""

    name: str
    script: str
    encoding: str
    text: str
    word: str


SAMPLES = (
    Sample(
        "archive-ja.txt",
        "Japanese",
        "utf-8",
        "この図書館の地下室には、明治時代の古い地図や写真が大切に保管されています。"
        "資料番号は四七七一です。閲覧を希望する方は、受付で予約してください。",
        "資料番号",
    ),
    Sample(
        "archive-zh.txt",
        "Chinese",
        "utf-8",
        "这座博物馆的地下室收藏了许多古老的地图和手稿，其中一些已有三百多年的历史。"
        "参观者需要提前在网上预约。",
        "手稿",
    ),
    Sample(
        "archive-ko.txt",
        "Korean",
        "utf-8",
        "우리 마을 도서관 지하에는 오래된 지도와 사진이 소중히 보관되어 있습니다. "
        "열람을 원하시면 접수처에서 미리 예약해 주십시오.",
        "보관되어",
    ),
    Sample(
        "archive-th.txt",
        "Thai",
        "utf-8",
        "ห้องสมุดแห่งนี้เก็บรักษาแผนที่โบราณและภาพถ่ายเก่าไว้ในห้องใต้ดิน ผู้เยี่ยมชมต้องจองล่วงหน้าที่เคาน์เตอร์",
        "แผนที่",
    ),
    Sample(
        "archive-ru.txt",
        "Russian",
        "utf-8",
        "В подвале библиотеки хранятся старинные карты и рукописи девятнадцатого века. "
        "Посетителям нужно записаться заранее у входа.",
        "рукописи",
    ),
    Sample(
        "archive-ar.txt",
        "Arabic",
        "utf-8",
        "تحتفظ المكتبة في قبوها بخرائط قديمة ومخطوطات نادرة من القرن التاسع عشر. "
        "يجب على الزوار الحجز مسبقا عند المدخل.",
        "نادرة",
    ),
    Sample(
        "archive-hi.txt",
        "Hindi",
        "utf-8",
        "इस पुस्तकालय के तहखाने में पुराने नक्शे और दुर्लभ पांडुलिपियाँ सुरक्षित रखी गई हैं। "
        "आगंतुकों को पहले से आरक्षण करना होगा।",
        "पांडुलिपियाँ",
    ),
    Sample(
        "archive-el.txt",
        "Greek",
        "utf-8",
        "Στο υπόγειο της βιβλιοθήκης φυλάσσονται παλιοί χάρτες και σπάνια χειρόγραφα "
        "του δέκατου ένατου αιώνα. Οι επισκέπτες πρέπει να κάνουν κράτηση.",
        "χειρόγραφα",
    ),
    Sample(
        "legacy-sjis.txt",
        "Japanese",
        "shift_jis",
        "明日の天気予報によると、午後から強い雨が降るそうです。出かけるときは傘を忘れないでください。",
        "天気予報",
    ),
    Sample(
        "legacy-gb18030.txt",
        "Chinese",
        "gb18030",
        "这个城市的地铁系统非常方便，每天有数百万乘客使用。票价也很便宜，学生还有折扣。",
        "乘客",
    ),
    Sample(
        "legacy-cp1251.txt",
        "Russian",
        "cp1251",
        "Вчера мы ходили в театр и смотрели замечательный спектакль о любви и дружбе. "
        "Билеты купили заранее.",
        "спектакль",
    ),
    Sample(
        "legacy-cp1252.txt",
        "French",
        "cp1252",
        "Le café était fermé, alors nous avons déjeuné au marché près de l'église. "
        "Le boulanger nous a vendu des croissants encore chauds.",
        "déjeuné",
    ),
)


@dataclass(frozen=True)
class Checkout:
    name: str
    python: str
    source: Path


def parse_checkout(raw: str) -> Checkout:
    name, _, rest = raw.partition("=")
    python, _, source = rest.partition("@")
    if not name or not python:
        raise argparse.ArgumentTypeError(f"expected NAME=PYTHON[@SOURCE], got {raw!r}")
    return Checkout(name, python, Path(source or Path(python).resolve().parents[2]).resolve())


def build_folder(notes: Path, into: Path) -> Path:
    """The notes and the samples in one folder (the samples saved in their encodings)."""
    folder = into / "notes"
    shutil.copytree(notes, folder)
    for s in SAMPLES:
        (folder / s.name).write_bytes(s.text.encode(s.encoding))
    return folder


def run(checkout: Checkout, args: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(checkout.source)}
    return subprocess.run(
        [checkout.python, "-m", "app", *args],
        cwd=checkout.source,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        **kw,  # type: ignore[arg-type]
    )


def ranks(checkout: Checkout, folder: Path, work: Path) -> tuple[dict[str, int | None], float]:
    """Each sample's rank in its word's top 3 (None: not there), and the indexing seconds."""
    data = work / f"data-{checkout.name}"
    t0 = time.perf_counter()
    run(checkout, ["--data-dir", str(data), "index", str(folder)])
    seconds = time.perf_counter() - t0
    batch = work / "queries.jsonl"
    batch.write_text(
        "".join(json.dumps({"_id": s.name, "text": s.word}) + "\n" for s in SAMPLES), "utf-8"
    )
    out = run(checkout, ["--data-dir", str(data), "search", "--batch", str(batch), "-k", "3"])
    found: dict[str, int | None] = {}
    for line in out.stdout.splitlines():
        row = json.loads(line)
        paths = [Path(h["path"]).name for h in row.get("hits", [])]
        found[row["_id"]] = paths.index(row["_id"]) + 1 if row["_id"] in paths else None
    return found, seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", default="corpus/notes/git", help="inside ../shared/data")
    ap.add_argument(
        "--checkout",
        action="append",
        type=parse_checkout,
        default=[],
        help="another checkout to compare, NAME=PYTHON@SOURCE (repeatable)",
    )
    args = ap.parse_args()
    notes = require_data(*Path(args.folder).parts)
    checkouts = [*args.checkout, Checkout("this", sys.executable, REPO_ROOT)]
    work = Path(tempfile.mkdtemp(prefix="fn-bench-scripts-"))
    try:
        folder = build_folder(notes, work)
        results = {c.name: ranks(c, folder, work) for c in checkouts}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"folder: {notes} ({sum(1 for _ in notes.rglob('*.md'))} notes) + {len(SAMPLES)} files")
    print_table(
        ["file", "script", "encoding", "word", *(f"rank, {c.name}" for c in checkouts)],
        [
            [s.name, s.script, s.encoding, s.word]
            + [results[c.name][0].get(s.name) or "-" for c in checkouts]
            for s in SAMPLES
        ],
    )
    print()
    rows = []
    for c in checkouts:
        found, seconds = results[c.name]
        utf8 = [s for s in SAMPLES if s.encoding == "utf-8"]
        legacy = [s for s in SAMPLES if s.encoding != "utf-8"]
        rows.append(
            [
                c.name,
                f"{sum(found.get(s.name) == 1 for s in utf8)}/{len(utf8)}",
                f"{sum(found.get(s.name) == 1 for s in legacy)}/{len(legacy)}",
                round(seconds, 1),
            ]
        )
    print_table(["checkout", "UTF-8 first", "legacy first", "index seconds"], rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
