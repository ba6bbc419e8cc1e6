"""Tables kept whole: a PDF statement's rows on one line, and every format's tables chunked at
their own edges, with their column heads on every part.

A statement set the way filings set it (the label at the left margin, each figure its own
text line in a column to the right, a dot leader between them, the page number and a running
head in the margins) used to come out as one line per cell: a passage held "Inventories" and
three figures with no year. Each test reads a real file written here.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import docx
import pymupdf
import pytest

from app.core.ingest import pdflayout
from app.core.ingest.chunking import chunk_document, chunk_text
from app.core.ingest.loaders import load_document
from app.core.ingest.pdftext import pdf_page_chars, pdf_page_text
from app.core.types import Page, TableSpan

ROWS = [
    ("Cash and cash equivalents", "2,822", "1,467"),
    ("Short-term investments", "-", "266"),
    ("Inventories", "4,310", "3,726"),
    ("Other current assets", "536", "260"),
    ("Total current assets", "7,669", "5,720"),
    ("Property and equipment, net", "319", "250"),
]


def statement_pdf(path: Path, rows: list[tuple[str, str, str]] = ROWS) -> Path:
    """One page: a running head, a bold title, the column heads, the rows (one with a dot
    leader), a sentence of prose below, and the page number at the foot."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 30), "Table of Contents", fontname="helv", fontsize=8)
    page.insert_text((72, 70), "Consolidated Balance Sheets", fontname="hebo", fontsize=11)
    page.insert_text((400, 100), "2019", fontname="helv", fontsize=9)
    page.insert_text((470, 100), "2018", fontname="helv", fontsize=9)
    y = 116
    for i, (label, a, b) in enumerate(rows):
        text = f"{label} . . . . . . . ." if i == 2 else label
        page.insert_text((72, y), text, fontname="helv", fontsize=9)
        page.insert_text((400, y), a, fontname="helv", fontsize=9)
        page.insert_text((470, y), b, fontname="helv", fontsize=9)
        y += 12
    page.insert_text(
        (72, y + 30), "The notes are an integral part of these statements.", fontsize=9
    )
    page.insert_text((300, 770), "47", fontname="helv", fontsize=9)
    doc.save(path)
    doc.close()
    return path


def read_back(doc: pymupdf.Document, path: Path) -> Page:
    """The one page of ``doc`` as Footnotes reads it, once saved at ``path``."""
    doc.save(path)
    doc.close()
    return load_document(path).pages[0]


def test_a_statement_row_is_one_line_with_its_figures(tmp_path: Path) -> None:
    doc = load_document(statement_pdf(tmp_path / "acme.pdf"))
    page = doc.pages[0]
    lines = page.text.splitlines()
    assert "Inventories | 4,310 | 3,726" in lines  # the leader is cut, the label keeps its row
    assert "Short-term investments | - | 266" in lines  # a dash for nil is a figure
    assert "2019 | 2018" in lines
    assert ". . ." not in page.text
    # page furniture is not passage text
    assert "Table of Contents" not in page.text and "47" not in lines
    (table,) = page.tables
    assert page.text[table.start : table.head_end] == "2019 | 2018"
    assert page.text[table.start : table.end].splitlines()[-1].startswith("Property and")


def test_the_next_columns_dollar_sign_set_after_a_figure_keeps_the_row_a_table_row(
    tmp_path: Path,
) -> None:
    """Many filings set each amount's "$" on the text line of the figure before it
    ("14,189    $", then "14,082"): such a row read as prose, so the table began at its first
    row without a dollar sign, and its column heads and first rows were left above it."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 160), "Year ended December 31,", fontname="helv", fontsize=9)
    page.insert_text((480, 160), "% change", fontname="helv", fontsize=9)
    for x, head in ((330, "2022"), (410, "2021"), (480, "22 vs. 21")):
        page.insert_text((x, 172), head, fontname="helv", fontsize=9)
    rows = [
        ("Net sales", "14,189", "14,082", "1%"),
        ("Gross margin", "4,506", "5,063", "(11%)"),
        ("Provision for income taxes", "(411)", "(491)", "16%"),
    ]
    y = 190
    for label, a, b, change in rows:
        page.insert_text((72, y), label, fontname="helv", fontsize=9)
        page.insert_text((300, y), "$", fontname="helv", fontsize=9)
        page.insert_text((330, y), f"{a}\u00a0 \u00a0 \u00a0 \u00a0 \u00a0 $", fontsize=9)
        page.insert_text((410, y), b, fontname="helv", fontsize=9)
        page.insert_text((480, y), change, fontname="helv", fontsize=9)
        y += 12
    page.insert_text((72, y), "Effective tax rate", fontname="helv", fontsize=9)
    page.insert_text((330, y), "23%", fontname="helv", fontsize=9)
    page.insert_text((410, y), "20%", fontname="helv", fontsize=9)
    path = tmp_path / "corning.pdf"
    page_read = read_back(doc, path)
    lines = page_read.text.splitlines()
    assert "Net sales | $ 14,189 | $ 14,082 | 1%" in lines
    assert "Provision for income taxes | $ (411) | $ (491) | 16%" in lines
    (table,) = page_read.tables
    assert page_read.text[table.start : table.head_end].splitlines() == [
        "Year ended December 31, | % change",
        "2022 | 2021 | 22 vs. 21",
    ]
    last_row = page_read.text[table.start : table.end].splitlines()[-1]
    assert last_row == "Effective tax rate | 23% | 20%"
    with pymupdf.open(path) as pdf:
        text, boxes = pdf_page_chars(pdf[0])
    second = text.index("$ 14,082")  # the sign's glyph is the one drawn after 14,189
    assert boxes[second] is not None and boxes[second][0] > 330


def test_the_glyph_boxes_follow_the_row_order(tmp_path: Path) -> None:
    """Highlights map offsets to glyphs: each character of a row's cells is the glyph drawn
    in that cell's column, separators have no box."""
    path = statement_pdf(tmp_path / "acme.pdf")
    with pymupdf.open(path) as pdf:
        text, boxes = pdf_page_chars(pdf[0])
        assert text == pdf_page_text(pdf[0])
    row = text.index("Inventories | 4,310 | 3,726")
    first_figure = row + len("Inventories | ")
    second_figure = first_figure + len("4,310 | ")
    assert boxes[first_figure] is not None and 395 < boxes[first_figure][0] < 410
    assert boxes[second_figure] is not None and 465 < boxes[second_figure][0] < 480
    assert boxes[first_figure - 2] is None  # the " | " between cells is not ink


def test_a_table_is_chunked_at_its_edges(tmp_path: Path) -> None:
    doc = load_document(statement_pdf(tmp_path / "acme.pdf"))
    page = doc.pages[0]
    (table,) = page.tables
    chunks = chunk_document(doc)
    for c in chunks:
        assert c.text == page.text[c.start : c.end]
    inside = [c for c in chunks if table.start <= c.start < table.end]
    assert inside[0].start == table.start and inside[-1].end == table.end
    assert all(c.end <= table.end for c in inside)  # the prose below is a passage of its own
    assert any(c.text.startswith("The notes are") for c in chunks)


def test_a_long_table_repeats_its_column_heads_on_every_part(tmp_path: Path) -> None:
    rows = [
        (f"Line item number {i} of the schedule", f"{i},{i:03d}", f"{i + 7},{i:03d}")
        for i in range(1, 50)
    ]
    doc = load_document(statement_pdf(tmp_path / "long.pdf", rows))
    page = doc.pages[0]
    (table,) = page.tables
    parts = [c for c in chunk_document(doc) if table.start <= c.start < table.end]
    assert len(parts) >= 3
    assert parts[0].text.startswith("2019 | 2018")
    for part in parts[1:]:
        assert part.heading is not None and part.heading.endswith("› 2019 | 2018")
        assert "2019 | 2018" in part.context  # embedded and searched with the rows
        assert "2019 | 2018" not in part.text  # the passage itself stays the page's text
        for line in part.text.splitlines():  # never a label without its figures
            assert line.count(" | ") == 2


def test_a_part_of_a_long_table_never_ends_right_before_a_total(tmp_path: Path) -> None:
    # sections of five line items, each closed by its total: "What is the total of section
    # 3?" is answered by the part that holds the total with the rows it sums, or at least
    # never by a part that stops one row short of it
    rows: list[tuple[str, str, str]] = []
    for section in range(1, 12):
        rows += [
            (f"Item {i} of section {section}", f"{i},10{section}", f"{i},20{section}")
            for i in range(1, 6)
        ]
        rows.append((f"Total section {section}", f"9,{section:03d}", f"8,{section:03d}"))
    doc = load_document(statement_pdf(tmp_path / "sections.pdf", rows))
    (table,) = doc.pages[0].tables
    parts = [c for c in chunk_document(doc) if table.start <= c.start < table.end]
    assert len(parts) >= 3
    after = [parts[i + 1].text.splitlines()[0] for i in range(len(parts) - 1)]
    assert not [line for line in after if line.startswith("Total")], after


@pytest.mark.parametrize("indent", ["", "  "])  # a Markdown table may be indented
def test_a_part_of_a_table_never_holds_its_column_heads_alone(indent: str) -> None:
    """Three rows of heads above rows dense with figures: the heads fill much of a part's
    budget, and the part used to end right after them, a passage of heads and no figures."""
    heads = [
        "2022 | 2021 | % change",
        "Operating | Operating | Operating Income",
        "(Dollars in millions) | Net Sales | % of Total | Income (Loss) | Net Sales | % of "
        "Total | Income (Loss) | Net Sales | (Loss)",
    ]
    rows = [
        f"Segment {i} | $ {i},604 | 33.9 % | $ 1,19{i} | $ 11,98{i} | 33.9 % | $ 2,46{i} | "
        f"(3.{i})% | (51.{i})%"
        for i in range(1, 12)
    ]
    text = indent + "\n".join([*heads, *rows])
    head_end = len(indent + "\n".join(heads))
    chunks = chunk_text(text, path="s.pdf", page=1, tables=(TableSpan(0, len(text), head_end),))
    assert len(chunks) >= 2
    assert chunks[0].end > head_end  # the first part holds the heads and rows under them
    assert chunks[0].text.splitlines()[len(heads)].startswith("Segment 1 |")


@pytest.mark.parametrize("indent", ["", "  "])
def test_a_table_starts_a_passage_of_its_own_after_prose(indent: str) -> None:
    """A short paragraph, then a table: the table is a passage of its own, indented or not
    (an indented table's part starts after its first spaces, and was read as going on with
    the paragraph above it)."""
    prose = "The harbour dues were set by the council in the spring of that year.\n\n"
    heads = indent + "Region | 2022 | 2021"
    rows = "\n".join(f"{indent}Region {i} | {i},100 | {i},200" for i in range(1, 5))
    text = prose + heads + "\n" + rows
    table = TableSpan(len(prose), len(text), len(prose) + len(heads))
    chunks = chunk_text(text, path="s.md", page=1, tables=(table,))
    assert [c.text.splitlines()[0] for c in chunks] == [prose.strip(), "Region | 2022 | 2021"]


def test_markdown_pipe_table_is_kept_whole(tmp_path: Path) -> None:
    rows = "\n".join(f"| Region {i} | {i * 10} | {i * 11} |" for i in range(60))
    text = (
        "# Sales\n\nA paragraph before the table about sales in general terms.\n\n"
        f"| Region | 2022 | 2021 |\n|---|---:|---:|\n{rows}\n\nAfter the table, prose again.\n"
    )
    path = tmp_path / "sales.md"
    path.write_text(text, encoding="utf-8")
    doc = load_document(path)
    (table,) = doc.pages[0].tables
    chunks = chunk_document(doc)
    parts = [c for c in chunks if table.start <= c.start < table.end]
    assert parts[0].start == table.start and len(parts) >= 2
    assert all(p.heading == "Sales › | Region | 2022 | 2021 |" for p in parts[1:])
    assert chunks[-1].text == "After the table, prose again."


def test_html_table_rows_cells_and_caption(tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    path.write_text(
        "<html><head><title>Report</title></head><body><p>Intro.</p><table>"
        "<caption>Sales by region</caption><thead><tr><th>Region</th><th>2022</th></tr>"
        "</thead><tbody><tr><td><p>North</p><p>and islands</p></td><td>10</td></tr>"
        "<tr><td>South</td><td>12</td></tr></tbody></table><p>After.</p></body></html>",
        encoding="utf-8",
    )
    page = load_document(path).pages[0]
    assert page.text == (
        "Intro.\n\nSales by region\nRegion | 2022\nNorth and islands | 10\nSouth | 12\n\nAfter."
    )
    (table,) = page.tables
    assert page.text[table.start : table.head_end] == "Sales by region\nRegion | 2022"
    assert page.text[table.start : table.end].endswith("South | 12")


def test_word_table_rows(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Before.")
    table = document.add_table(rows=3, cols=3)
    for r, cells in enumerate([("Item", "2022", "2021"), ("Cash", "5", "4"), ("Debt", "9", "8")]):
        for c, value in enumerate(cells):
            table.cell(r, c).text = value
    path = tmp_path / "t.docx"
    document.save(str(path))
    page = load_document(path).pages[0]
    assert page.text == "Before.\n\nItem | 2022 | 2021\nCash | 5 | 4\nDebt | 9 | 8"
    (span,) = page.tables
    assert page.text[span.start : span.head_end] == "Item | 2022 | 2021"


def test_csv_parts_carry_the_header_line(tmp_path: Path) -> None:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["account", "fy2022", "fy2021"])
    for i in range(200):
        writer.writerow([f"account number {i}", i * 3, i * 2])
    path = tmp_path / "ledger.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    doc = load_document(path)
    chunks = chunk_document(doc)
    assert len(chunks) >= 3
    assert chunks[0].text.startswith("account,fy2022,fy2021")
    assert all(c.heading == "account,fy2022,fy2021" for c in chunks[1:])
    assert all(c.text.splitlines()[0].startswith("account number") for c in chunks[1:])


def test_a_sign_written_after_its_own_amount_and_a_dated_row_stay_as_written() -> None:
    """One space before a sign is an amount written the European way, not a column's gap;
    a row with one year among its cells is a row, not column heads."""
    line = "Le billet coûte 20 €"
    assert [line[a:b] for a, b in pdflayout.cells_of(line)] == [line]
    gap = "14,189\u00a0 \u00a0 $"
    assert [gap[a:b] for a, b in pdflayout.cells_of(gap)] == ["14,189", "$"]
    assert not pdflayout.is_head_line("Founded | 1998")
    assert not pdflayout.is_head_line("Plant A | Ohio | 1998")
    assert pdflayout.is_head_line("2022 | 2021 | 22 vs. 21")


def test_a_tables_years_at_the_top_of_a_page_are_its_column_heads_not_page_numbers(
    tmp_path: Path,
) -> None:
    """A statement continued at the top of a page sets its years in the band where page
    numbers stand; alone on its row a number there is furniture, beside others a head."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((400, 50), "2022", fontname="helv", fontsize=9)
    page.insert_text((470, 50), "2021", fontname="helv", fontsize=9)
    y = 66
    for label, a, b in ROWS:
        page.insert_text((72, y), label, fontname="helv", fontsize=9)
        page.insert_text((400, y), a, fontname="helv", fontsize=9)
        page.insert_text((470, y), b, fontname="helv", fontsize=9)
        y += 12
    page.insert_text((300, 40), "12", fontname="helv", fontsize=9)  # the page number, alone
    page_read = read_back(doc, tmp_path / "continued.pdf")
    (table,) = page_read.tables
    assert page_read.text[table.start : table.head_end] == "2022 | 2021"
    assert "12" not in page_read.text.splitlines()


def test_figures_set_side_by_side_on_one_line_are_a_cell_each(tmp_path: Path) -> None:
    """Some statements set both years' figures as one text line with white space between
    ("1,603,451  1,499,218"): the row read as a label and one cell that is no figure, so it
    was no table row and had no years above it."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 70), "Condensed Consolidated Balance Sheets", fontsize=11)
    page.insert_text((400, 100), "2023", fontname="helv", fontsize=9)
    page.insert_text((470, 100), "2022", fontname="helv", fontsize=9)
    y = 116
    for label, a, b in ROWS:
        page.insert_text((72, y), label, fontname="helv", fontsize=9)
        page.insert_text((400, y), f"{a}\u00a0 \u00a0 \u00a0 \u00a0 {b}", fontsize=9)
        y += 12
    page.insert_text((72, y + 20), "Net sales grew  15 percent  in 2023.", fontsize=9)
    page_read = read_back(doc, tmp_path / "ulta.pdf")
    lines = page_read.text.splitlines()
    assert "Inventories | 4,310 | 3,726" in lines
    (table,) = page_read.tables
    assert page_read.text[table.start : table.head_end] == "2023 | 2022"
    # white space between words that are not all figures is no column's gap
    assert any(" ".join(line.split()) == "Net sales grew 15 percent in 2023." for line in lines)


def test_a_dollar_sign_after_a_figure_is_the_next_columns_where_the_page_writes_it_first(
    tmp_path: Path,
) -> None:
    """A total row set "$ 26,268 | $ (14) $ | 796 $ | 25,486": on a page whose amounts carry
    their "$" in front, a "$" one space after a figure belongs to the next column's amount."""
    doc = pymupdf.open()
    page = doc.new_page()
    for x, head in ((250, "Net Sales"), (330, "Currency"), (410, "Divestitures"), (490, "Organic")):
        page.insert_text((x, 100), head, fontname="helv", fontsize=9)
    rows = [
        ("United States", "$ 18,122", "$ - $", "- $", "18,122"),
        ("Canada", "2,173", "(5)", "443", "1,735"),
        ("EMEA", "2,718", "66", "19", "2,633"),
        ("Kraft Heinz", "$ 26,268", "$ (14) $", "796 $", "25,486"),
    ]
    y = 116
    for label, *cells in rows:
        page.insert_text((72, y), label, fontname="helv", fontsize=9)
        for x, cell in zip((250, 330, 410, 490), cells, strict=True):
            page.insert_text((x, y), cell, fontname="helv", fontsize=9)
        y += 12
    lines = read_back(doc, tmp_path / "organic.pdf").text.splitlines()
    assert "Kraft Heinz | $ 26,268 | $ (14) | $ 796 | $ 25,486" in lines
    assert "United States | $ 18,122 | $ - | $ - | $ 18,122" in lines
    # where no amount carries its sign in front, one space before a sign is the amount's own
    line = "Le billet coûte 15 $"
    assert [line[a:b] for a, b in pdflayout.cells_of(line)] == [line]
    assert not pdflayout.dollar_first(["Le billet coûte 15 $", "Total 30 $"])


def test_changes_in_percentage_points_and_negative_percentages_are_figures() -> None:
    """ "(0.6) pp" and "(0.2)%" are a table's figures: rows of them are a table's rows."""
    for cell in ("(0.6) pp", "0.0 pp", "(0.2)%", "14.9 %", "(4.8%)"):
        assert pdflayout.is_figure(cell), cell
    assert not pdflayout.is_figure("pp 12")
