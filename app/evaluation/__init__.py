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
    load_written_pages,
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
from app.evaluation.support import DevSet, held_out, refit, shipped_figures
from app.evaluation.support import close as close_sets
from app.evaluation.support import figures as support_figures
from app.evaluation.support import squad_set as squad_support_set
from app.evaluation.support_data import DevRow, half

__all__ = [
    "KINDS",
    "MODES",
    "BeirSet",
    "DevRow",
    "DevSet",
    "EvalDataError",
    "FinanceQuestion",
    "SquadQuestion",
    "auroc",
    "average_ranks",
    "close_sets",
    "default_data_dir",
    "eval_beir",
    "eval_engine",
    "eval_financebench",
    "file_stem",
    "half",
    "held_out",
    "load_beir",
    "load_financebench",
    "load_squad2",
    "load_written_pages",
    "ndcg_at_k",
    "read_jsonl",
    "recall_at_k",
    "refit",
    "run_corpus",
    "run_financebench",
    "run_scifact",
    "safe_name",
    "shipped_figures",
    "squad_support_set",
    "support_figures",
    "write_docs",
]
