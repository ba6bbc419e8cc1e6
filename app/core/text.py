"""Text primitives shared by every stage: hashes, words, stopwords, stems, citations, sentences.

Also the shape of a page that lists rather than says (``is_toc_like``): tables of contents,
indexes, lists of page numbers and lists of links to other pages (a notes collection's README),
whose lines name topics without stating anything about them.

What a word is, in every script, is said once: ``words`` (the full-text index, the lexical
query, snippets, excerpts, the support flag and the named-file test all split text with it).
``query_terms`` keeps a question's content words as typed, in order (the lexical query, the
support flag's key terms), without ``STOPWORDS``; the verdict's own word view (stems, figures
kept whole) is ``app.core.verdict.terms``.
"""

from __future__ import annotations

import codecs
import functools
import hashlib
import itertools
import re
import threading
import unicodedata
from typing import NamedTuple

import regex
import snowballstemmer

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours
    yourself yourselves
    """.split()  # noqa: SIM905
)
_PORTER = snowballstemmer.stemmer("porter")  # the Porter (1980) rules that FTS5 uses
_PORTER_LOCK = threading.Lock()


def text_hash(text: str) -> str:
    """Hex blake2b (16-byte digest) of the exact UTF-8 text: cache key and Chroma id."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def display_path(path: str) -> str:
    """A path as text for a person or a model: bytes that are not UTF-8 become U+FFFD.

    File names that are not valid UTF-8 reach Python as lone surrogates (``os.fsdecode``);
    they stay the key everywhere paths are stored, but cannot be encoded into a prompt, a JSON
    request body or a Qt string.
    """
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _as_cp1252(err: UnicodeError) -> tuple[str, int]:
    """A codec error handler: bytes that are not UTF-8 read as Windows-1252 (a Latin-1 terminal)."""
    if not isinstance(err, UnicodeDecodeError):
        raise err
    return err.object[err.start : err.end].decode("cp1252", "replace"), err.end


codecs.register_error("footnotes-cp1252", _as_cp1252)


def well_formed(text: str) -> str:
    """``text`` with no lone surrogates, which tokenizers and SQLite reject: a command-line
    argument in a non-UTF-8 locale (``os.fsdecode`` of ``caf\\xe9``) reads its stray bytes as
    Windows-1252 (``café``); any other lone surrogate becomes U+FFFD."""
    if not _SURROGATE.search(text):
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that is no escaped byte (JSON's "\\ud800")
        raw = _SURROGATE.sub("\ufffd", text).encode("utf-8", "surrogateescape")
    return raw.decode("utf-8", "footnotes-cp1252")


# -- words, in every script ------------------------------------------------------------------
# Scripts written without spaces between words. A run of one of them has no boundaries to go
# by (no dictionary here), so it is read as its overlapping pairs of characters, as Lucene's
# CJK analyzer reads Chinese, Japanese and Korean: "資料番号" -> "資料", "料番", "番号". Each
# script is a run of its own, so Japanese kanji, hiragana and katakana part where they meet
# ("資料番号は" -> "資料", "料番", "番号", "は"): a particle is no half of a pair.
_UNSPACED_SCRIPTS = (
    r"[\p{sc=Han}\u3006]",  # Chinese characters and Japanese kanji (with 々 〇 〆)
    r"\p{sc=Hiragana}",
    r"[\p{sc=Katakana}\u30fc\uff70]",  # with the prolonged sound mark ー
    r"\p{sc=Hangul}",  # Korean puts spaces between phrases: a noun and its particle are one
    r"\p{sc=Thai}",
    r"\p{sc=Lao}",
    r"\p{sc=Khmer}",
    r"\p{sc=Myanmar}",
)
# A word of a spaced script: a run of letters, digits and combining marks (a Devanagari vowel
# sign, a Thai tone mark, an accent typed apart), as SQLite's unicode61 tokenizer reads one
# with ``categories 'L* N* Co M*'``; apostrophes and hyphens separate words. Underscores join
# them as in a name of code ("find_opt"): the index holds its parts, and a search for it
# looks for them side by side.
_SPACED = r"[[\p{L}\p{N}\p{M}\p{Co}]--[" + "".join(s.strip("[]") for s in _UNSPACED_SCRIPTS) + "]]"
_TOKEN = regex.compile(
    "|".join(f"((?:{script}\\p{{M}}*)+)" for script in _UNSPACED_SCRIPTS)
    + f"|({_SPACED}+(?:_{_SPACED}+)*)",
    regex.V1,
)
_SPACED_GROUP = len(_UNSPACED_SCRIPTS) + 1
_UNSPACED = regex.compile("|".join(_UNSPACED_SCRIPTS))
_UNIT = regex.compile(r"\X")  # one user-perceived character: a base and its marks
# Every block that holds a character of those scripts (a superset: a quick test that a text
# has none, so that the full-text index reads it unchanged).
_MAYBE_UNSPACED = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u19e0-\u19ff\u2e80-\u2fdf"
    "\u3005-\u3007\u3021-\u3029\u3031-\u3035\u3038-\u303c\u3040-\u30ff\u3130-\u318f"
    "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\ua9e0-\ua9ff\uaa60-\uaa7f"
    "\uac00-\ud7ff\uf900-\ufaff\uff66-\uffdc\U00020000-\U0003134f]"
)
# One character of these a word on its own: a Chinese character or a Korean syllable is one
# ("猫", "책"); a lone kana is a particle or an ending ("は", "を"), a lone Thai letter nothing.
_WORD_ALONE = regex.compile(r"[\p{sc=Han}\p{sc=Hangul}]\p{M}*")


class Word(NamedTuple):
    """A word of a text: as written, and where (``text == source[start:end]``)."""

    text: str
    start: int
    end: int


def words(text: str) -> list[Word]:
    """The words of ``text`` in order, in any script: what search, snippets and sentence
    checks count as a word, and the tokens the full-text index holds (``index_words``).

    In a script written with spaces (Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari...) a
    word is a run of letters, digits and combining marks, so "पांडुलिपियाँ" and "naïve" stay
    whole and "FY2018" and "find_opt" are one word each; punctuation, spaces and symbols
    separate words, and case is kept (callers fold it). In a script written without spaces (Han,
    hiragana, katakana, Hangul, Thai, Lao, Khmer, Myanmar) each run of one script gives its
    overlapping pairs of characters, and a run of one character that character: "古老的地图和
    手稿" -> "古老", "老的", "的地", "地图", "图和", "和手", "手稿". A word and a pair of the same
    run overlap by one character; words of one unbroken token touch (``a.end == b.start``:
    "東京タワー" -> "東京", "タワ", "ワー"), words with something between them do not.

    Two texts share a word exactly when each holds it, so a word found in a passage is found
    by search, and a Japanese sentence can be matched to a Japanese passage pair by pair.
    """
    out: list[Word] = []
    for m in _TOKEN.finditer(text):
        if m.lastindex == _SPACED_GROUP:
            out.append(Word(m.group(), m.start(), m.end()))
            continue
        units = [(u.start(), u.end()) for u in _UNIT.finditer(text, m.start(), m.end())]
        if len(units) == 1:
            out.append(Word(m.group(), m.start(), m.end()))
            continue
        for (start, _), (_, end) in itertools.pairwise(units):
            out.append(Word(text[start:end], start, end))
    return out


def index_words(text: str) -> str:
    """``text`` as the full-text index is given it: unchanged when no script written without
    spaces is in it (the tokenizer reads its words as ``words`` does), else its ``words``
    joined by spaces, so the index holds the pairs of characters that a query is split into.

    The index keeps what this returned, and deletes a row by giving it again: a change to
    ``words`` for those scripts needs a new schema version that rebuilds the index.
    """
    if not _MAYBE_UNSPACED.search(text):
        return text
    return " ".join(w.text for w in words(text))


def unspaced(text: str) -> bool:
    """Whether ``text`` holds a letter of a script written without spaces (``words`` reads
    its runs as pairs of characters)."""
    return bool(_MAYBE_UNSPACED.search(text)) and bool(_UNSPACED.search(text))


def word_alone(word: str) -> bool:
    """Whether ``word`` (of ``words``) is a word by itself: any word of two characters or
    more, a number, or one Chinese character or Korean syllable (not a lone kana: a particle)."""
    return len(word) > 1 or word.isdigit() or bool(_WORD_ALONE.fullmatch(word))


_ALNUM_PARTS = regex.compile(r"[\p{L}\p{M}]+|\d+")


def alnum_parts(word: str) -> list[str]:
    """A word's runs of letters and of digits ("FY2018" -> "FY", "2018"; "find_opt" -> "find",
    "opt"); letters keep their marks, so "दुर्लभ" is one part, not three."""
    return _ALNUM_PARTS.findall(word)


def counted(n: int, one: str, many: str | None = None) -> str:
    """ "1 passage", "2 passages", "1,204 files": a count with its noun agreeing."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def query_terms(text: str) -> list[str]:
    """Lower-cased words of a question without stopwords, in order, without repeats."""
    seen: dict[str, None] = {}
    for found in words(text):
        word = found.text.lower()
        if word not in STOPWORDS and word_alone(word):
            seen.setdefault(word, None)
    return list(seen)


def fold(word: str) -> str:
    """Lower case without diacritics, as the full-text index's tokenizer reads a word."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of a word: the rule the FTS5 index applies (``tokenize='porter ...'``),
    so lexical search, the support flag and the claim checks agree on what a word is."""
    w = fold(word)
    if not w or w[0].isdigit():
        return w
    with _PORTER_LOCK:  # the stemmer object holds its state while it works
        return str(_PORTER.stemWord(w))


# -- citation markers: [1], [1, 2], [1-3], [source 2] ---------------------------------------
CITATION = re.compile(
    r"\[\s*(?:sources?\s*)?(\d{1,3}(?:\s*(?:,|;|-|–|and)\s*(?:sources?\s*)?\d{1,3})*)\s*\]",
    re.IGNORECASE,
)


def citations(text: str) -> list[int]:
    """Source numbers cited as ``[n]``, ``[n, m]``, ``[n-m]`` or ``[source n]``, in order."""
    out: list[int] = []
    for m in CITATION.finditer(text):
        for part in re.split(r"\s*(?:,|;|and)\s*", m.group(1)):
            nums = [int(x) for x in re.findall(r"\d+", part)]
            if len(nums) == 2 and 0 < nums[1] - nums[0] <= 20:  # a range such as [1-3]
                nums = list(range(nums[0], nums[1] + 1))
            out.extend(n for n in nums if n not in out)
    return out


def strip_citations(text: str) -> str:
    """``text`` with citation markers blanked out (same length, so offsets still hold)."""
    return CITATION.sub(lambda m: " " * len(m.group()), text)


_LINK = re.compile(r"\[([^\[\]]+)\]\([^)\s]+\)")  # its words may wrap across lines


def link_words(text: str) -> str:
    """``text`` with each Markdown link given as its words: "[Devise 4.2.0+](https://…)" is
    "Devise 4.2.0+", not the figures and words of its address."""
    return _LINK.sub(r"\1", text)


# -- sentences ------------------------------------------------------------------------------
# Full stops that a space follows (the Devanagari danda and the Arabic question mark too), and
# those of Chinese and Japanese, which end a sentence with nothing after them: "…です。資料…".
_STOPS = ".!?…।॥؟"
_WIDE_STOPS = "。！？｡"
_END = re.compile(
    rf"[{_STOPS}]+[\"'”’)]*(?:\s*\[[^\[\]\n]{{1,24}}\])*"  # full stops, closers, citations
    rf"|[{_WIDE_STOPS}]+[」』）】〕\"'”’)]*(?:\s*\[[^\[\]\n]{{1,24}}\])*"
    r"|\n[ \t]*\n\s*"  # a blank line always ends a sentence
    r"|\n(?=[ \t]*(?:[-*•+]|\d{1,3}[.)])\s)"  # so does a line that starts a list item
)
_ANSWER_END = re.compile(_END.pattern + r"|\n", re.IGNORECASE)  # in answers every line break
_LEAD = re.compile(r"(?:\s|[-*•+#>]+\s|\d{1,3}[.)]\s)*")
_ABBREV_WORDS = (
    "e.g i.e etc vs cf al mr mrs ms dr prof st jr sr inc ltd co "
    "corp approx ca dept est jan feb mar apr jun jul aug sep sept oct nov dec"
)
_ABBREV = frozenset(_ABBREV_WORDS.split())
# Abbreviations that number what follows ("No. 5", "Fig. 3", "pp. 12"): only before a figure.
# "No. The report says…" is an answer's first sentence.
_NUMBERING = frozenset(["no", "nos", "fig", "figs", "eq", "pp", "vol"])


def sentence_spans(text: str, *, lines: bool = False) -> list[tuple[int, int]]:
    """(start, end) of each sentence, trimmed of whitespace and list markers.

    Citation markers right after the full stop stay with their sentence; a Chinese or
    Japanese full stop ends a sentence with no space after it. With ``lines``
    (for answers) every line break ends a sentence; in passages single line breaks are
    usually wrapped lines and are kept inside the sentence.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for m in (_ANSWER_END if lines else _END).finditer(text):
        if m.group()[0] in _WIDE_STOPS:
            _push(text, start, m.end(), spans)
        elif m.group()[0] in _STOPS:
            after = text[m.end() : m.end() + 1]
            if after and not after.isspace():
                continue  # 3.5, file.txt, e.g.x
            nxt = text[m.end() :].lstrip()[:1]
            if nxt.islower() or _abbreviation(text, m.start()) or _list_numeral(text, m.start()):
                continue
            if _in_inline_code(text, m.start()):
                continue  # "`git diff --name-only ... -- "*.md"`": code, not a full stop
            _push(text, start, m.end(), spans)
        else:
            _push(text, start, m.start(), spans)
        start = m.end()
    _push(text, start, len(text), spans)
    return spans


def _in_inline_code(text: str, at: int) -> bool:
    """Whether ``at`` is inside a backtick span that opens and closes on its line."""
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    before = text.count("`", line_start, at)
    return before % 2 == 1 and "`" in text[at : line_end if line_end >= 0 else len(text)]


def _abbreviation(text: str, dot: int) -> bool:
    word = re.search(r"([\w.]+)$", text[max(0, dot - 12) : dot])
    if not word:
        return False
    w = word.group(1).lower().rstrip(".")
    if w in _NUMBERING:
        return text[dot + 1 :].lstrip()[:1].isdigit()
    return w in _ABBREV or bool(_INITIALS.fullmatch(w))


_INITIALS = re.compile(r"[^\W\d_](?:\.[^\W\d_])*")  # "J", "U.N", "U.S.A": letters, dotted


_NUMERAL_AT_LINE_START = re.compile(r"(?:^|\n)[ \t]*\d{1,3}$")


def _list_numeral(text: str, dot: int) -> bool:
    """Whether the full stop at ``dot`` closes a list item's numeral ("1. Fit the tyre"): the
    marker is trimmed off the item, not a sentence of its own."""
    return _NUMERAL_AT_LINE_START.search(text, max(0, dot - 8), dot) is not None


def _push(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    lead = _LEAD.match(text, start, end)
    if lead:
        start = lead.end()
    while end > start and text[end - 1].isspace():
        end -= 1
    if any(ch.isalnum() for ch in text[start:end]):
        spans.append((start, end))


# -- pages that list rather than say: contents, indexes, page numbers -----------------------
_PAGE_NO = r"(?:\d{1,3}|[ivxlcdm]{1,7})"  # page numbers; four digits are years
_DOTS = r"[.·•…_](?:[ \t]*[.·•…_]){2,}[ \t]*"  # a dot leader: three dots or more
_LEADER_LINE = re.compile(_DOTS + _PAGE_NO + r"[ \t]*$", re.IGNORECASE)
_LEADER = re.compile(_DOTS + _PAGE_NO + r"\b", re.IGNORECASE)
_INDEX_LINE = re.compile(r"^[^\d\n]{1,80}?[,\s]\s*\d{1,3}(?:(?:[,;]\s+|\s*[–-]\s*)\d{1,3})+\s*$")
_PAGE_RUN = re.compile(r"^\d{1,3}(?:[,;]?\s+\d{1,3}){3,}\.?$")
# A list item that is only a link to another note or page ("- [Title](dir/note.md)",
# "* [[Note]]"): the index of a notes collection, a README's list of its pages.
_LINK_LINE = re.compile(
    r"^(?:[-*+]|\d{1,3}[.)])[ \t]+(?:\[[^\]\n]{1,200}\]\([^)\s]{1,400}\)|\[\[[^\]\n]{1,200}\]\])$"
)
_TITLE_PAGE_LINE = re.compile(
    r"^\s*(?:(?:\d+(?:\.\d+)*|[A-Z]|[ivxlc]+)[.)]?\s+)?[^\W\d](?:[^.!?:;]|\.(?=\w)){1,90}?[ \t]+"
    + _PAGE_NO
    + r"\s*$",
    re.IGNORECASE,
)
# The same on a line a page's layout set in cells, where its number may follow a word naming
# the kind ("Item 1A. | Risk Factors | 17", "Note 4. Acquisitions | 70"): a 10-K's contents.
# Only in cells: "Step 3. Bake the sponge for 25" is a step, whatever its last word.
_CELLED_TITLE_PAGE_LINE = re.compile(
    r"^\s*(?:(?:[^\W\d]{2,12}\s+)?(?:\d+(?:\.\d+)*[A-Z]?|[A-Z]|[ivxlc]+)[.)]?\s+)?"
    r"[^\W\d](?:[^.!?:;]|\.(?=\w)){1,90}?[ \t]+" + _PAGE_NO + r"\s*$",
    re.IGNORECASE,
)
# A table's row as a PDF page's layout sets it ("Other notes | 62 | 51"): two cells or more
# of figures after its label. Its last figure is not a page number, whatever its size.
_FIGURE_CELL = re.compile(r"[\s$]*\(?[-–—]?\s*(?:\d[\d,.]*\)?%?|[-–—]+)[\s$]*")
_TOC_SHARE = 0.5  # of a text's lines in a listing shape, for the text to be a listing
_TOC_MIN_LINES = 3


def is_toc_line(line: str) -> bool:
    """One line of a table of contents or an index: a dot leader to a page number, a term and
    its page numbers, a run of page numbers (a table's figures, with thousands separators
    or four-digit years, are not), or a list item that is only a link to another page."""
    text = line.strip()
    if not text or _table_row(text):
        return False
    text = _flat(text)
    return bool(
        _LEADER_LINE.search(text)
        or _INDEX_LINE.match(text)
        or _PAGE_RUN.match(text)
        or _LINK_LINE.match(text)
    )


def _flat(line: str) -> str:
    """A line with its cells run together: a PDF's contents row "1.1 | Imports | 3" (its dot
    leader cut) reads as "1.1 Imports 3", the shape of a title and its page."""
    return line.replace(" | ", " ") if " | " in line else line


def _titled(line: str) -> bool:
    """A title followed by its page number, and not a table's row."""
    pattern = _CELLED_TITLE_PAGE_LINE if " | " in line else _TITLE_PAGE_LINE
    return bool(pattern.match(_flat(line))) and not _table_row(line)


def _table_row(line: str) -> bool:
    """A row of a table whose cells are joined by " | ": two figures at least, or one that no
    page number looks like ("$ 356", "(61)", "1,577", "4.5%", "—")."""
    cells = line.split(" | ")
    figures = [c for c in cells[1:] if _FIGURE_CELL.fullmatch(c)]
    return len(figures) >= 2 or any(re.search(r"[$(),.%—–-]", c) for c in figures)


def toc_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of the lines of ``text`` that list rather than say (see ``is_toc_line``).

    In a text that is a listing as a whole (``is_toc_like``), a title followed by its page
    number ("2.1 Reading data 15") counts too; alone such a line may be a sentence.
    """
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text) if m.group().strip()]
    whole = _listing(text, lines)
    out = []
    for s, e in lines:
        line = text[s:e]
        titled = whole and _titled(line)
        run_on = len(_LEADER.findall(line)) >= 2  # a contents page extracted as one long line
        if is_toc_line(line) or titled or run_on:
            out.append((s, e))
    return out


def is_toc_like(text: str) -> bool:
    """Whether ``text`` (a line or a page) is a table of contents, an index or a list of page
    numbers rather than prose: from its shape alone, so it holds for any language."""
    lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text) if m.group().strip()]
    if len(lines) == 1:
        line = text[lines[0][0] : lines[0][1]]
        return is_toc_line(line) or len(_LEADER.findall(line)) >= 2
    return _listing(text, lines)


def _listing(text: str, lines: list[tuple[int, int]]) -> bool:
    if any(_table_row(text[s:e]) for s, e in lines):
        return False  # a table with a row of figures in it lists amounts, not pages
    if len(lines) < _TOC_MIN_LINES:
        return bool(lines) and all(is_toc_line(text[s:e]) for s, e in lines)
    shaped = sum(bool(is_toc_line(text[s:e]) or _titled(text[s:e])) for s, e in lines)
    return shaped / len(lines) >= _TOC_SHARE
