"""The rows of the check table that read code: a line, inline code, a session, captions.

Prose may say a thing in other words; code may not (``code``). A line of code is backed only
by a source holding it as written; a prose sentence's inline code must be in a source piece by
piece; a sentence written around a short note's code may rest on the note's sentences
together; what an interactive session shows an expression giving, and which caption a note
gives each block of its code, hold a sentence to them (``code``, ``captions``).
``checks.CHECKS`` lists them in their place among the other rows.
"""

from __future__ import annotations

from app.core.verdict.rows import Check, Effect, Example

_E = Example
CODE_CHECKS: tuple[Check, ...] = (
    Check(
        "code",
        "a line of code, backed only by a source holding it character for character",
        "no source holds this code as written",
        Effect.FLAGS,
        "any",
        (
            _E("x = compute(a, b);", "x = compute(a, b);", "backed"),
            _E("x = compute(b, a);", "x = compute(a, b);", "flagged"),
        ),
    ),
    Check(
        "spread",
        "a sentence written around a short passage's code (a note's instruction, its code "
        "and a line further on, more than the two adjacent sentences alignment reads): "
        "backed when the passage holds each piece of its inline code as written, and its "
        "sentences together cover its words, hold its figures and names and contradict "
        "none of its arcs",
        "matches [1]",
        Effect.BACKS,
        "any",
        (
            _E(
                "Call `Intl.DateTimeFormat().resolvedOptions().timeZone` from client-side "
                "code to tell which time zone a user is in, and `resolvedOptions` also reports "
                "the locale and the numbering system [1].",
                "The `resolvedOptions` function reports the locale and the numbering system "
                "of the client computer. Every current browser has supported it since 2017."
                "\n\n```javascript\nIntl.DateTimeFormat().resolvedOptions().timeZone\n```"
                "\n\nOlder browsers return undefined for some of the fields. Client-side code "
                "can use the time zone it returns to tell which time zone a user is in.",
                "backed",
            ),
            _E(  # the figures in the code block's output line are the note's example
                "Pressing `g CTRL-g` shows the line, word and byte counts of the file "
                "and where the cursor sits, e.g. `Word 397 of 1451` [1].",
                "You can display counts for the current file including line count, word "
                "count, and byte count by hitting `g CTRL-g`. This also displays the line, "
                "word, and byte that your cursor is currently at. The output looks like "
                "this:\n\n```\nCol 1 of 0; Line 108 of 337; Word 397 of 1451; Byte 4571 of "
                "18077\n```\n\nSee the help for more details.",
                "backed",
            ),
        ),
    ),
    Check(
        "inline_code",
        "a sentence's inline code (`…`) that no source holds as written, whitespace aside: "
        "code is read exactly, as a line of code is",
        "no source holds `:dependencies` as written",
        Effect.FLAGS,
        "any",
        (
            _E(
                'Add `[lein-try "0.4.3"]` to the `:dependencies` vector of your '
                "`project.clj`, then run `lein try automat` [1].",
                "The lein-try plugin opens a REPL with a library loaded. Add "
                '`[lein-try "0.4.3"]` to the `:plugins` vector of '
                "`~/.lein/profiles.clj`. Then run `lein try automat`.",
                "flagged",
            ),
            _E(
                "Run `git stash -u` to stash untracked files too [1].",
                "To stash untracked files too, run `git  stash  -u` in the repository.",
                "backed",
            ),
            _E(  # read as a whole token: `fsync` is not `fsync-tool`
                "Install it with `pip install fsync` [1].",
                "Install the client with `pip install fsync-tool`.",
                "flagged",
            ),
        ),
    ),
    Check(
        "repl",
        'an expression the sentence says gives a result ("`3 === Integer` returns `true`") '
        'that a source\'s interactive session shows giving another ("> 3 === Integer", '
        '"=> false")',
        "the source shows `3 === Integer` giving `false`, not `true`",
        Effect.FLAGS,
        "en",
        (
            _E(
                "Mind the order: `3 === Integer` returns `true` [1].",
                "Notice the ordering of class and value with the case equality operator:\n\n"
                "```ruby\n> Integer === 3\n=> true\n> 3 === Integer\n=> false\n```",
                "flagged",
            ),
            _E(
                "Mind the order: `Integer === 3` returns `true` [1].",
                "Notice the ordering of class and value with the case equality operator:\n\n"
                "```ruby\n> Integer === 3\n=> true\n> 3 === Integer\n=> false\n```",
                "backed",
            ),
        ),
    ),
    Check(
        "caption",
        "a sentence that gives a note's code the caption the note gives another block of its "
        "code (“To update just the access time:” above `touch -a`): it swaps which code does "
        "what",
        "[1] says this of `touch -m README.md`, not of `touch -a README.md`",
        Effect.FLAGS,
        "any",
        (
            _E(
                "Use `touch -a README.md` to update just the modify time, and `touch -m "
                "README.md` to update just the access time [1].",
                "You can update these values individually.\n\nTo update just the access "
                "time:\n\n```bash\n$ touch -a README.md\n```\n\nTo update just the modify "
                "time:\n\n```bash\n$ touch -m README.md\n```",
                "flagged",
            ),
            _E(
                "Use `touch -a README.md` to update just the access time, and `touch -m "
                "README.md` to update just the modify time [1].",
                "You can update these values individually.\n\nTo update just the access "
                "time:\n\n```bash\n$ touch -a README.md\n```\n\nTo update just the modify "
                "time:\n\n```bash\n$ touch -m README.md\n```",
                "backed",
            ),
        ),
    ),
)
