"""Which caption a note gives each block of its code, and a sentence that swaps them."""

from __future__ import annotations

from app.core.verdict.captions import swapped_caption

NOTE = (
    "# Touch Access And Modify Times Individually\n\n"
    "You can update these values individually with the `-a` and `-m` flags.\n\n"
    "To update just the access time:\n\n```bash\n$ touch -a README.md\n```\n\n"
    "To update just the modify time:\n\n```bash\n$ touch -m README.md\n```\n\n"
    "See `man touch` for more details."
)


def test_a_clause_giving_one_blocks_code_the_others_caption_is_caught() -> None:
    swapped = "Run `touch -m README.md` to update only the access time."
    assert swapped_caption(swapped, NOTE) == ("touch -m README.md", "touch -a README.md")
    # each clause of a sentence is read with its own code
    both = "`touch -a README.md` updates the access time; `touch -m README.md` the access time."
    assert swapped_caption(both, NOTE) == ("touch -m README.md", "touch -a README.md")


def test_the_right_pairing_and_sentences_it_cannot_read_are_left_alone() -> None:
    assert swapped_caption("Run `touch -a README.md` to update only the access time.", NOTE) is None
    # two pieces of code in one clause: which caption goes with which is not said
    assert (
        swapped_caption("Use `touch -a README.md` or `touch -m README.md` for the time.", NOTE)
        is None
    )
    one_block = "To update just the access time:\n\n```bash\n$ touch -a README.md\n```"
    assert swapped_caption("`touch -a README.md` updates the modify time.", one_block) is None
