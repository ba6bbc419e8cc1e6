"""Developer tooling: figures on the labelled sets (``footnotes eval``), not the product path.

Imported by the command line only (an import-linter contract keeps the core and the window
from reaching it).
"""

from app.evaluation.datasets import (
    KINDS,
    BeirSet,
    EvalDataError,
    FinanceQuestion,
    SquadQuestion,
    default_data_dir,
    load_beir,
    load_financebench,
    load_squad2,
    read_jsonl,
    safe_name,
    write_docs,
)
from app.evaluation.metrics import auroc, average_ranks, ndcg_at_k, recall_at_k
from app.evaluation.retrieval import (
    MODES,
    eval_beir,
    eval_engine,
    eval_financebench,
    file_stem,
    run_corpus,
    run_financebench,
    run_scifact,
)
from app.evaluation.support import (
    SupportSample,
    refit_support,
    search_squad2,
    support_report,
    title_half,
    verdict_figures,
)

__all__ = [
    "KINDS",
    "MODES",
    "BeirSet",
    "EvalDataError",
    "FinanceQuestion",
    "SquadQuestion",
    "SupportSample",
    "auroc",
    "average_ranks",
    "default_data_dir",
    "eval_beir",
    "eval_engine",
    "eval_financebench",
    "file_stem",
    "load_beir",
    "load_financebench",
    "load_squad2",
    "ndcg_at_k",
    "read_jsonl",
    "recall_at_k",
    "refit_support",
    "run_corpus",
    "run_financebench",
    "run_scifact",
    "safe_name",
    "search_squad2",
    "support_report",
    "title_half",
    "verdict_figures",
    "write_docs",
]
