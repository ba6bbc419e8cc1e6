"""A thread (or one answer) as Markdown with real footnotes: each ``[n]`` a footnote quoting
its source, unsupported sentences marked, changed or removed files said so, and nothing from
a file or a model able to run as HTML. (Writing the export to a file: ``test_export_file.py``.)"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from markdown_it import MarkdownIt

from app.core.text import text_hash
from app.core.threads.export import (
    UNSUPPORTED_MARK,
    file_link,
    no_html,
    quote,
    source_state,
    thread_markdown,
)
from app.core.threads.store import StoredSource, ThreadStore, Turn

FIRST_Q = "How often should the chain on a road bicycle be replaced?"
FIRST_A = "The chain should be replaced every three thousand kilometres [1]."


def turn(path: str, text: str, *, question: str = FIRST_Q, answer: str = FIRST_A) -> Turn:
    source = StoredSource(1, path, None, 0, len(text), text, text_hash(text))
    end = answer.index("[1]") + len("[1].")
    marks = [
        {
            "text": answer[:end],
            "start": 0,
            "end": end,
            "supported": True,
            "sources": [1],
            "spans": [{"n": 1, "start": 0, "end": len(text)}],
            "kind": "claim",
        }
    ]
    return Turn(
        question=question,
        search_query=question,
        answer=answer,
        sources=[source],
        verdict={"level": "supported", "reason": "every claim is backed"},
        sentences=marks,
        model="llama3.2",
        created=time.time(),
    )


def _footnotes(markdown: str) -> tuple[list[str], dict[str, str]]:
    refs = re.findall(r"\[\^(\d+)\](?!:)", markdown)
    defs = dict(re.findall(r"^\[\^(\d+)\]: (.*)$", markdown, re.MULTILINE))
    return refs, defs


def test_export_has_real_footnotes_and_marks_unsupported_sentences(tmp_path: Path) -> None:
    doc = tmp_path / "bikes.txt"
    text = "The chain on a road bicycle should be replaced every three thousand kilometres."
    doc.write_text(text)
    one = turn(str(doc), text)
    one.n = 1
    two = turn(str(doc), text, question="Why?", answer="It stretches [1]. Cats like it [1].")
    two.n, two.search_query = 2, "Why? chain road bicycle replaced"
    two.sentences[0]["end"] = len("It stretches [1].")
    two.sentences.append(
        {"text": " Cats like it [1].", "start": 17, "end": 35, "supported": False, "kind": "claim"}
    )
    md = thread_markdown(FIRST_Q, [one, two], thread_id="abcd1234")
    MarkdownIt("commonmark").parse(md)  # it parses
    refs, defs = _footnotes(md)
    assert refs and set(refs) == set(defs)  # every reference has its definition, and back
    for definition in defs.values():
        quote = re.search(r"“(.*)”", definition)
        assert quote and quote.group(1).rstrip("…") in text
        assert f"file://{doc}" in definition
    assert "It stretches[^2]. Cats like it[^2]. ⚠" in md
    assert "*Searched for: Why? chain road bicycle replaced*" in md


def test_an_exported_sentence_that_cited_the_wrong_source_points_at_the_right_one(
    tmp_path: Path,
) -> None:
    """The model wrote [2] (a lease) for a fact the checks found in [1] (the bike notes): the
    footnote must quote the bike notes, not the lease."""
    bikes, lease = tmp_path / "bikes.txt", tmp_path / "lease.txt"
    bikes.write_text(text := "The front tyre takes 80 psi and the rear 85 psi.")
    lease.write_text(other := "The lease runs until 30 June and renews for a year.")
    t = turn(str(bikes), text, answer="The front tyre takes 80 psi [1].")
    t.answer = t.answer.replace("[1]", "[2]")
    t.sources.append(StoredSource(2, str(lease), None, 0, len(other), other, text_hash(other)))
    t.sentences[0] |= {"text": t.answer, "sources": [2], "reason": "found in [1], not in [2]"}
    t.n = 1
    md = thread_markdown("tyre pressure?", [t])
    _, defs = _footnotes(md)
    assert "The front tyre takes 80 psi[^1]." in md
    assert len(defs) == 1 and "bikes.txt" in defs["1"] and "lease.txt" not in defs["1"]
    # the lease was read all the same: listed as read, not as the sentence's footnote
    assert "*Also read by the model, not cited:*\n\n- \\[2\\] [" in md and "30 June" in md


def test_an_export_of_an_answer_without_citations_lists_every_source_read(
    tmp_path: Path,
) -> None:
    """An answer with no [n] exported with no sources at all, though its verdict said
    "closest: [2]" and the model read eight passages."""
    texts = [f"Passage {i} says the warranty lasts {i} years." for i in range(1, 9)]
    t = turn(str(tmp_path / "w1.txt"), texts[0], answer="The warranty is long [1].")
    t.answer, t.sentences, t.n = "The warranty is long.", [], 1
    t.verdict = {"level": "unsupported", "reason": "No sentence cites a passage; closest: [2]."}
    t.sources += [
        StoredSource(i, str(tmp_path / f"w{i}.txt"), i, 0, len(x), x, text_hash(x))
        for i, x in enumerate(texts[1:], start=2)
    ]
    t.sources[2].sent = [[0, 9]]  # the model read only the start of [3]
    md = thread_markdown("warranty?", [t])
    MarkdownIt("commonmark").parse(md)
    assert "*Read by the model (the answer cites none of them):*" in md
    listed = re.findall(r"^- \\\[(\d+)\\\] \[.*\]\(file://[^)]*\)(.*)$", md, re.MULTILINE)
    assert [int(n) for n, _ in listed] == list(range(1, 9))
    for (n, rest), text in zip(listed, texts, strict=True):
        if n == "3":
            assert "“Passage 3”" in rest and "read in part" in rest
        else:
            assert f"“{text}”" in rest and (n == "1" or f", p. {n}" in rest)


def test_export_of_a_non_utf8_path_is_legible(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9-notes.txt")  # Latin-1 bytes: not valid UTF-8
    text = "Espresso is brewed at nine bars of pressure."
    store = ThreadStore(tmp_path / "t.sqlite3")
    tid = store.create("espresso?")
    store.add_turn(tid, turn(f"/docs/{name}", text, answer="Nine bars [1]."))
    [stored] = store.turns(tid)
    assert stored.sources[0].path == f"/docs/{name}"  # the same bytes come back
    md = thread_markdown("espresso?", [stored])
    md.encode("utf-8")  # no lone surrogates
    assert "caf\ufffd\\-notes.txt" in md or "caf\ufffd-notes.txt" in md
    assert "file:///docs/caf%E9-notes.txt" in md
    assert "removed since this answer" in md


def test_nothing_from_a_file_or_a_model_can_run_as_html(tmp_path: Path) -> None:
    doc = tmp_path / "page.html"
    text = 'Click <img src=x onerror="alert(1)"> to <script>steal()</script> & go.'
    doc.write_text(text)
    t = turn(str(doc), text, question="<b>what</b>?", answer="It says <script>x</script> [1].")
    t.n = 1
    md = thread_markdown("<script>title</script>", [t])
    html = MarkdownIt("commonmark").render(md)
    assert "<script" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;script&gt;" in md and "&amp; go" in md
    assert no_html("a < b & c > d") == "a &lt; b &amp; c &gt; d"


def test_a_turn_with_no_answer_or_an_error_says_so() -> None:
    t = Turn("Is it raining?", "Is it raining?", "", n=1, created=time.time())
    t.error = "Ollama is not running at http://127.0.0.1:11434."
    md = thread_markdown("Rain", [t])
    assert "*(no answer)*" in md and "*Error: Ollama is not running" in md
    assert md.startswith("# Rain\n\n*From Footnotes, 1 answer, ")
    assert "---" not in md  # no sources cited: no footnotes


def test_a_source_changed_since_the_answer_says_so(tmp_path: Path) -> None:
    doc = tmp_path / "bikes.txt"
    doc.write_text("old text")
    source = StoredSource(1, str(doc), None, 0, 8, "old text", text_hash("old text"))
    answered = os.stat(doc).st_mtime
    assert source_state(source, answered) is None
    os.utime(doc, (answered + 60, answered + 60))
    assert source_state(source, answered) == "changed since this answer"
    doc.unlink()
    assert source_state(source, answered) == "removed since this answer"


def test_the_quote_is_the_supporting_span_cut_at_a_word() -> None:
    text = "Intro words. The chain stretches with wear. " + "More text here. " * 30
    source = StoredSource(1, "/d/a.txt", None, 0, len(text), text, text_hash(text))
    start = text.index("The chain")
    assert quote(source, [(start, start + 30)]) == "The chain stretches with wear."
    assert quote(source, [(5, 5000), (start, start + 30)]) == "The chain stretches with wear."
    whole = quote(source)  # no span: the start of the source, cut to about 200 characters
    assert whole.startswith("Intro words.") and whole.endswith("…") and len(whole) <= 201
    assert not whole.rstrip("…").endswith(" ")


def test_a_file_link_is_legible_and_its_url_percent_encoded() -> None:
    assert file_link("/d/my_[notes]*.md") == (
        "[/d/my\\_\\[notes\\]\\*.md](file:///d/my_%5Bnotes%5D%2A.md)"
    )
    assert file_link("/d/a b.md").endswith("(file:///d/a%20b.md)")


def test_the_unsupported_mark_sits_after_the_sentence_before_its_space(tmp_path: Path) -> None:
    text = "The chain lasts 3,000 km."
    t = turn(str(tmp_path / "x.txt"), text, answer="It lasts 5,000 km [1].  More follows.")
    t.sentences[0]["supported"] = False
    t.n = 1
    md = thread_markdown("chain", [t])
    assert f"It lasts 5,000 km[^1].{UNSUPPORTED_MARK}  More follows." in md
    assert re.search(r"^\[\^1\]: ", md, re.MULTILINE)


RENT = "The monthly rent is 1,450 euros, due on the first day of each month."


def _lease_turn(tmp_path: Path, text: str, answer: str) -> Turn:
    """One answer about a lease (written to a file), its first sentence a backed claim."""
    lease = tmp_path / "lease.txt"
    lease.write_text(text)
    t = turn(str(lease), text, answer=answer)
    t.n = 1
    return t


def _span(start: int, end: int) -> dict[str, int]:
    return {"n": 1, "start": start, "end": end}


def test_each_sentence_citing_one_source_is_quoted_at_its_own_span(tmp_path: Path) -> None:
    """Two sentences cite one lease, each backed by another part of it: the rent sentence's
    footnote quotes the rent, not the pets sentence's words (one footnote per source quoted
    the first span any sentence had of it); a sentence backed where another is shares its
    footnote."""
    text = "Pets: one cat is allowed; dogs are not permitted without written consent. " + RENT
    answer = "One cat is allowed [1]. The rent is 1,450 euros [1]. It is due on the first [1]."
    t = _lease_turn(tmp_path, text, answer)
    pets = (0, text.index(" The monthly"))
    rent = (text.index("The monthly"), len(text))
    ends = [answer.index("[1].", i) + 4 for i in (0, 24, 52)]
    t.sentences = [
        t.sentences[0] | {"text": answer[a:b], "start": a, "end": b, "spans": [_span(*span)]}
        for a, b, span in zip([0, ends[0], ends[1]], ends, [pets, rent, rent], strict=True)
    ]
    md = thread_markdown("lease terms?", [t])
    assert "One cat is allowed[^1]. The rent is 1,450 euros[^2]. It is due on the first[^2]." in md
    _, defs = _footnotes(md)
    assert set(defs) == {"1", "2"}
    assert "one cat is allowed" in defs["1"] and "1,450" not in defs["1"]
    assert "The monthly rent is 1,450 euros" in defs["2"] and "cat" not in defs["2"]


def test_a_sentence_backed_by_two_parts_of_a_source_quotes_both(tmp_path: Path) -> None:
    """The pets and the rent, one sentence: its footnote quotes both parts, in the source's
    order, not only the first."""
    text = "Pets: one cat is allowed. The hall is shared. " + RENT
    t = _lease_turn(tmp_path, text, "One cat is allowed and the rent is 1,450 euros [1].")
    rent = (text.index("The monthly"), len(text))
    pets = (0, text.index(" The hall"))
    t.sentences[0]["spans"] = [_span(*rent), _span(*pets)]
    _, defs = _footnotes(thread_markdown("lease?", [t]))
    (only,) = defs.values()
    assert "“Pets: one cat is allowed. … The monthly rent is 1,450 euros" in only
    assert "hall" not in only
