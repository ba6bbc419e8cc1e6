"""Keeps the answer, the sources list and the passage view pointing at the same source.

A citation, a click on a sentence, Ctrl+N, a selection in the list or quick-ask's hand-over
all come here; opening or revealing a file is allowed only for a source of the shown answer.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QAction

from app.ui import desktop
from app.ui.answer_view import AnswerView
from app.ui.passage_view import PassageView
from app.ui.sources_panel import SourcesPanel
from app.ui.status_line import StatusLine


class SourceNavigator(QObject):
    """Selects sources, shows their passages, and highlights what a sentence rests on."""

    opened = Signal(str)  # what opening a file did (from the launcher's thread)

    def __init__(
        self,
        answer: AnswerView,
        sources: SourcesPanel,
        passage: PassageView,
        status: StatusLine,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.answer = answer
        self.sources = sources
        self.passage = passage
        self.status = status
        answer.citation_clicked.connect(self.show_source)
        answer.sentence_hovered.connect(self.on_sentence_hovered)
        answer.sentence_clicked.connect(self.on_sentence_clicked)
        sources.source_selected.connect(self._on_source_selected)
        sources.open_requested.connect(self.open_source_n)
        passage.open_requested.connect(self.open_file)
        passage.reveal_requested.connect(self.reveal_file)
        self.opened.connect(self._on_opened)

    # -- choosing a source -----------------------------------------------------------------
    @Slot(int)
    def show_source(self, n: int) -> None:
        """Select source ``n`` and show its passage (a citation link, a shortcut, quick-ask)."""
        hit = self.sources.model_.hit(n)
        if hit is None:
            return
        if self.sources.current() == n:
            self.passage.show_source(n, hit)
        else:
            self.sources.select(n)

    @Slot(int)
    def _on_source_selected(self, n: int) -> None:
        hit = self.sources.model_.hit(n)
        if hit is not None:
            self.passage.show_source(n, hit)

    @Slot()
    def on_number_shortcut(self) -> None:
        """Ctrl+1 … Ctrl+9: the action's data is the source number."""
        action = self.sender()
        if isinstance(action, QAction):
            self.show_source(int(action.data()))

    @Slot()
    def next_source(self) -> None:
        """Show the next source (Alt+Down)."""
        self.show_source(self.sources.current() + 1)

    @Slot()
    def previous_source(self) -> None:
        """Show the previous source (Alt+Up)."""
        self.show_source(max(1, self.sources.current() - 1))

    # -- sentences and their support -------------------------------------------------------
    def _spans_for(self, index: int, n: int) -> list[tuple[int, int]]:
        marks = self.answer.marks
        if not 0 <= index < len(marks):
            return []
        return [(s, e) for (src, s, e) in marks[index].support_spans if src == n]

    @Slot(int)
    def on_sentence_hovered(self, index: int) -> None:
        """Highlight the span of the shown passage that supports sentence ``index``."""
        if index < 0:
            self.passage.set_strong([])
            return
        n = self.passage.n
        spans = self._spans_for(index, n)
        self.passage.set_strong(spans)
        mark = self.answer.marks[index] if index < len(self.answer.marks) else None
        if mark is not None and not spans and mark.support_spans:
            other = mark.support_spans[0][0]
            self.status.flash(
                f"This sentence rests on source [{other}]: click it to show that passage.", 4000
            )

    @Slot(int)
    def on_sentence_clicked(self, index: int) -> None:
        """Show the passage that supports sentence ``index``, its span highlighted."""
        marks = self.answer.marks
        if not 0 <= index < len(marks):
            return
        mark = marks[index]
        if not mark.support_spans:
            if mark.kind != "meta":
                self.status.flash("No passage in your files supports this sentence.", 5000)
            return
        n = mark.support_spans[0][0]
        if self.passage.n != n:
            self.show_source(n)
        self.passage.set_strong(self._spans_for(index, n))

    # -- opening files ---------------------------------------------------------------------
    @Slot()
    def open_current_source(self) -> None:
        """Open the selected source in its application (Ctrl+Return)."""
        self.open_source_n(self.sources.current())

    @Slot()
    def reveal_current_source(self) -> None:
        """Show the selected source in its folder (Ctrl+Shift+R)."""
        hit = self.sources.model_.hit(self.sources.current())
        if hit is not None:
            self.reveal_file(hit.path)

    @Slot(int)
    def open_source_n(self, n: int) -> None:
        """Open source ``n`` at its page, in its application."""
        hit = self.sources.model_.hit(n)
        if hit is not None:
            self.open_file(hit.path, hit.page or 0)

    def _is_source(self, path: str) -> bool:
        """Only files that are sources of the shown answer (so: in the index) are opened."""
        return any(row.hit.path == path for row in self.sources.model_.rows)

    @Slot(str, int)
    def open_file(self, path: str, page: int) -> None:
        """Open ``path`` at ``page`` in its application, if it is a shown source."""
        if self._is_source(path):
            self.status.flash(f"Opening {os.path.basename(path)}…", 3000)
            desktop.open_file(path, page, self.opened.emit)

    @Slot(str)
    def _on_opened(self, said: str) -> None:
        """Say which viewer opened the file (at which page), or plainly that none could."""
        self.status.flash(said, 10_000)

    @Slot(str)
    def reveal_file(self, path: str) -> None:
        """Show ``path`` in its folder, if it is a shown source."""
        if self._is_source(path):
            desktop.reveal(path)
