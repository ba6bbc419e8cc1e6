"""The labelled sets in ``../shared/data``: SciFact (BEIR layout), FinanceBench, SQuAD 2.0."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError


class EvalDataError(Exception):
    """The evaluation data is missing or unreadable; the message names the file."""


def default_data_dir() -> Path:
    """``../shared/data`` beside the project checkout."""
    return Path(__file__).resolve().parents[3] / "shared" / "data"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [record for _, record in numbered_jsonl(path)]


def numbered_jsonl(path: Path) -> list[tuple[int, Any]]:
    """The JSON value of each non-blank line of ``path``, with its line number; an unreadable
    file or line is an ``EvalDataError`` naming both."""
    out = []
    try:
        with path.open(encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                if line.strip():
                    try:
                        out.append((number, json.loads(line)))
                    except ValueError as exc:
                        raise EvalDataError(f"cannot read {path}, line {number}: {exc}") from None
    except (OSError, ValueError) as exc:  # a missing file, or bytes that are not UTF-8
        raise EvalDataError(f"cannot read {path}: {exc}") from None
    return out


def safe_name(doc_id: str) -> str:
    return re.sub(r"[^\w.#-]", "_", doc_id)


def write_docs(docs: Mapping[str, str], folder: Path) -> Path:
    """One ``<id>.txt`` per document; files whose text is unchanged are left alone (mtime kept)."""
    folder.mkdir(parents=True, exist_ok=True)
    for doc_id, text in docs.items():
        path = folder / f"{safe_name(doc_id)}.txt"
        try:
            if path.read_text(encoding="utf-8") == text:
                continue
        except OSError:
            pass
        path.write_text(text, encoding="utf-8")
    return folder


@dataclass
class BeirSet:
    corpus: dict[str, str]  # id -> title + blank line + text
    queries: dict[str, str]
    qrels: dict[str, dict[str, float]]


def load_beir(folder: Path, split: str = "dev", limit: int | None = None) -> BeirSet:
    """A BEIR folder; only queries with judgements in ``qrels/<split>.tsv`` are kept."""
    corpus = {
        str(d["_id"]): f"{d.get('title', '').strip()}\n\n{d['text']}".strip() + "\n"
        for d in read_jsonl(folder / "corpus.jsonl")
    }
    qrels: dict[str, dict[str, float]] = {}
    try:
        lines = (folder / "qrels" / f"{split}.tsv").read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EvalDataError(f"cannot read qrels: {exc}") from None
    for line in lines[1:]:
        qid, did, score = line.split("\t")[:3]
        qrels.setdefault(qid, {})[did] = float(score)
    queries = {str(q["_id"]): q["text"] for q in read_jsonl(folder / "queries.jsonl")}
    kept = [q for q in queries if q in qrels][:limit]
    return BeirSet(corpus, {q: queries[q] for q in kept}, {q: qrels[q] for q in kept})


@dataclass
class FinanceQuestion:
    id: str
    question: str
    pages: set[tuple[str, int]] = field(default_factory=set)  # (doc name, 1-based page)
    answer: str = ""  # the gold answer (a number, a sentence)
    company: str = ""


def load_financebench(folder: Path, limit: int | None = None) -> list[FinanceQuestion]:
    """Questions whose PDFs are present; evidence pages converted to 1-based."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EvalDataError(f"cannot read {folder / 'manifest.json'}: {exc}") from None
    present = {q["financebench_id"] for q in manifest["questions"] if q.get("pdf_included")}
    out = []
    for q in read_jsonl(folder / "questions.jsonl"):
        if q["financebench_id"] in present:
            out.append(_finance_question(q))
    return out[:limit]


# Questions written against the filings in corpus/ in FinanceBench's manner, with their
# evidence pages (``sets/README.md``): dev data for the page ranking, all of it.
WRITTEN_PAGES = Path(__file__).parent / "sets" / "filing-pages-dev.jsonl"


class _WrittenQuestion(BaseModel):
    """One line of a written questions file, as strict as a file kept by hand needs: ids and
    questions as text, pages a list of whole numbers from 1 ("12" and true are neither)."""

    model_config = ConfigDict(strict=True, str_strip_whitespace=True)

    id: Annotated[str, StringConstraints(min_length=1)]
    question: Annotated[str, StringConstraints(min_length=1)]
    doc_name: Annotated[str, StringConstraints(min_length=1)]
    pages: Annotated[list[Annotated[int, Field(ge=1)]], Field(min_length=1)]
    answer: Any = None


def load_written_pages(path: Path = WRITTEN_PAGES) -> list[FinanceQuestion]:
    """The written questions over the filings, evidence pages 1-based as written; a line
    that is not one (a file kept by hand) is an ``EvalDataError`` naming the file and line."""
    out = []
    for line, record in numbered_jsonl(path):
        try:
            q = _WrittenQuestion.model_validate(record)
        except ValidationError:
            raise EvalDataError(
                f"{path}, line {line}: a written question needs an id, a question and a "
                "doc_name (text), and its pages: a list of page numbers counted from 1"
            ) from None
        out.append(
            FinanceQuestion(
                q.id,
                q.question,
                {(q.doc_name, p) for p in q.pages},
                str(q.answer or ""),
                q.doc_name.split("_")[0].lower(),
            )
        )
    return out


def load_financebench_all(folder: Path) -> list[FinanceQuestion]:
    """Every development question with its gold answer, whether or not its PDF is present
    (the caller asks the index which filings it holds)."""
    return [_finance_question(q) for q in read_jsonl(folder / "questions.jsonl")]


def _finance_question(q: dict[str, Any]) -> FinanceQuestion:
    """One FinanceBench line; evidence pages converted to 1-based."""
    pages = {(e["doc_name"], int(e["evidence_page_num"]) + 1) for e in q["evidence"]}
    company = str(q.get("company") or q["doc_name"].split("_")[0]).lower()
    return FinanceQuestion(
        q["financebench_id"], q["question"], pages, str(q.get("answer") or ""), company
    )


KINDS = ("answerable", "unanswerable_in_corpus", "out_of_corpus")


@dataclass
class SquadQuestion:
    id: str
    question: str
    kind: str
    title: str
    passage_id: str | None
    answers: tuple[str, ...] = ()  # gold answers (answerable questions only)


def load_squad2(
    folder: Path, limit: int | None = None
) -> tuple[dict[str, str], list[SquadQuestion]]:
    """Passages (id -> text) and the development questions (``limit`` per kind)."""
    passages = {
        str(p["_id"]): p["text"].strip() + "\n" for p in read_jsonl(folder / "passages.jsonl")
    }
    taken = dict.fromkeys(KINDS, 0)
    questions = []
    for q in read_jsonl(folder / "questions.jsonl"):
        kind = q.get("kind", "")
        if kind not in taken or (limit is not None and taken[kind] >= limit):
            continue
        taken[kind] += 1
        questions.append(
            SquadQuestion(
                q["id"],
                q["question"],
                kind,
                q.get("title", ""),
                q.get("passage_id"),
                tuple(str(a) for a in q.get("answers") or ()),
            )
        )
    return passages, questions
