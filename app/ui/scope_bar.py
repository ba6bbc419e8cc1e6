"""The scope control beside a question box: folders, file types and a period to search within.

A "Scope" button opens a menu of the watched folders (plus "Choose folder…"), the file types
in the index and a period; while a scope is set, a chip says what it is ("In: Notes · pdf ·
last 7 days") with a button that clears it. The bar only presents the choice: it emits a
``Scope`` and builds one when asked; the window hands it to the service with the question.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from PySide6.QtCore import QDate, Qt, Signal, Slot
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import (
    QCheckBox,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QMenu,
    QToolButton,
    QWidget,
)

from app.core.ingest.scanning import normalize
from app.core.search.scope import Scope, ScopeChoices
from app.ui.sources_panel import short_folder
from app.ui.theme import colors
from app.ui.widgets import plain_label, shown_path, tooltip

CHOOSE = "choose"
CHIP_WIDTH = 320  # pixels of summary before it is elided (the tooltip has it all)
# Periods counted back from the day a question is asked, so a scope kept for days stays true.
PERIODS = (
    ("any", "Any time"),
    ("7d", "Last 7 days"),
    ("30d", "Last 30 days"),
    ("year", "This year"),
    ("custom", "Custom dates…"),
)


def period_dates(
    period: str, today: date, custom: tuple[date | None, date | None] = (None, None)
) -> tuple[date | None, date | None]:
    """(since, until) of a period on ``today``; "last 7 days" is today and the 6 before it."""
    if period == "7d":
        return today - timedelta(days=6), None
    if period == "30d":
        return today - timedelta(days=29), None
    if period == "year":
        return date(today.year, 1, 1), None
    if period == "custom":
        return custom
    return None, None


class PeriodDialog(QDialog):
    """Two optional days, from and to (inclusive)."""

    def __init__(self, since: date | None, until: date | None, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Search files modified…")
        today = QDate.currentDate()
        self.use_since, self.since = QCheckBox("From"), QDateEdit(_qdate(since) or today)
        self.use_until, self.until = QCheckBox("To"), QDateEdit(_qdate(until) or today)
        form = QFormLayout(self)
        rows = ((self.use_since, self.since, since), (self.use_until, self.until, until))
        for check, edit, value in rows:
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            check.setChecked(value is not None or (since is None and until is None))
            form.addRow(check, edit)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def dates(self) -> tuple[date | None, date | None]:
        """The chosen days, in order (a reversed pair is swapped)."""
        since = _day(self.since.date()) if self.use_since.isChecked() else None
        until = _day(self.until.date()) if self.use_until.isChecked() else None
        if since and until and since > until:
            since, until = until, since
        return since, until


def _qdate(day: date | None) -> QDate | None:
    return None if day is None else QDate(day.year, day.month, day.day)


def _day(qdate: QDate) -> date:
    return date(qdate.year(), qdate.month(), qdate.day())


class ScopeBar(QWidget):
    """A scope button with its menu, and the chip that shows an active scope."""

    scope_changed = Signal(object)  # Scope (the period as of today)
    choices_requested = Signal()  # the menu is opening: the folders and types may have changed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choices = ScopeChoices()
        self.folders: list[str] = []
        self.types: list[str] = []
        self.period = "any"
        self.custom: tuple[date | None, date | None] = (None, None)
        self._chosen: list[str] = []  # folders picked with "Choose folder…", offered again
        self._dialog: QDialog | None = None

        self.chip = QFrame()
        self.chip.setObjectName("scopeChip")
        self.chip_label = plain_label()
        self.clear_button = QToolButton()
        self.clear_button.setText("✕")
        self.clear_button.setAutoRaise(True)
        self.clear_button.setToolTip("Search all your files again")
        self.clear_button.clicked.connect(self.clear)
        chip_row = QHBoxLayout(self.chip)
        chip_row.setContentsMargins(8, 0, 2, 0)
        chip_row.setSpacing(2)
        chip_row.addWidget(self.chip_label)
        chip_row.addWidget(self.clear_button)

        self.menu = QMenu(self)
        self.folders_menu = self.menu.addMenu("Folders")
        self.types_menu = self.menu.addMenu("File types")
        self.period_menu = self.menu.addMenu("Modified")
        self.menu.aboutToShow.connect(self.choices_requested)
        # each list is made when it opens: never rebuilt under the action being delivered
        self.folders_menu.aboutToShow.connect(self._fill_folders)
        self.types_menu.aboutToShow.connect(self._fill_types)
        self.period_menu.aboutToShow.connect(self._fill_periods)
        self._period_group = QActionGroup(self)
        self.folders_menu.triggered.connect(self._on_folder_action)
        self.types_menu.triggered.connect(self._on_type_action)
        self.period_menu.triggered.connect(self._on_period_action)
        self.button = QToolButton()
        self.button.setText("Scope")
        self.button.setObjectName("scopeButton")
        self.button.setToolTip("Search only some folders, file types or a period")
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.button.setMenu(self.menu)

        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        row.addWidget(self.chip)
        row.addWidget(self.button)
        self._show_chip()

    # -- the scope ---------------------------------------------------------------------------
    def scope(self, today: date | None = None) -> Scope:
        """The scope chosen, its period counted from ``today`` (default: the real today)."""
        since, until = period_dates(self.period, today or date.today(), self.custom)
        return Scope(tuple(self.folders), tuple(self.types), since, until)

    def summary(self) -> str:
        """What the chip says: ``In: Notes · pdf · last 7 days`` ("" when nothing is limited)."""
        where = Scope(tuple(self.folders), tuple(self.types)).summary()
        if self.period == "custom":
            when = Scope(since=self.custom[0], until=self.custom[1]).period()
        else:
            when = "" if self.period == "any" else dict(PERIODS)[self.period].lower()
        return " · ".join(part for part in (where, when) if part)

    def set_folders(self, folders: list[str]) -> None:
        """Search only these folders (or files); empty for every folder."""
        self.folders = list(dict.fromkeys(normalize(f) for f in folders))
        self._changed()

    def set_types(self, types: list[str]) -> None:
        """Search only these file types (``pdf``, ``md``); empty for every type."""
        self.types = list(dict.fromkeys(types))
        self._changed()

    def set_period(self, period: str, since: date | None = None, until: date | None = None) -> None:
        """One of ``PERIODS``' keys; ``custom`` with its days."""
        self.period = period if period in dict(PERIODS) else "any"
        self.custom = (since, until) if self.period == "custom" else (None, None)
        if self.period == "custom" and since is None and until is None:
            self.period = "any"
        self._changed()

    @Slot()
    def clear(self) -> None:
        """Search everything again."""
        self.folders, self.types, self.period, self.custom = [], [], "any", (None, None)
        self._changed()

    @Slot(object)
    def set_choices(self, choices: ScopeChoices) -> None:
        """The watched folders and indexed types to offer (from the service)."""
        self.choices = choices

    def _changed(self) -> None:
        self._show_chip()
        self.scope_changed.emit(self.scope())

    def restyle(self) -> None:
        """Draw the chip again in the current theme's colours."""
        self._show_chip()

    def _show_chip(self) -> None:
        text = self.summary()
        metrics = self.chip_label.fontMetrics()  # many folders: the question box keeps its room
        self.chip_label.setText(metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, CHIP_WIDTH))
        self.chip.setToolTip(tooltip("Searching only: " + "\n".join(self._details())))
        c = colors()
        self.chip.setStyleSheet(
            f"#scopeChip {{ background:{c.hover_bg}; border:1px solid {c.border};"
            " border-radius:10px; }"
        )
        self.chip.setVisible(bool(text))

    def _details(self) -> list[str]:
        scope = self.scope()
        lines = [shown_path(p) for p in scope.paths]
        if scope.types:
            lines.append("types: " + ", ".join(scope.types))
        if scope.period():
            lines.append("modified " + scope.period())
        return lines

    # -- the menus ---------------------------------------------------------------------------
    @Slot()
    def _fill_folders(self) -> None:
        self.folders_menu.clear()
        offered = list(dict.fromkeys([*self.choices.folders, *self._chosen, *self.folders]))
        for folder in offered:
            label = short_folder(shown_path(folder))
            self._add_check(self.folders_menu, label, folder, folder in self.folders)
        if offered:
            self.folders_menu.addSeparator()
        self._add_check(self.folders_menu, "Choose folder…", CHOOSE, None)

    @Slot()
    def _fill_types(self) -> None:
        self.types_menu.clear()
        for ext in dict.fromkeys([*self.choices.types, *self.types]):
            self._add_check(self.types_menu, ext, ext, ext in self.types)
        if not self.types_menu.actions():
            self.types_menu.addAction("(nothing indexed yet)").setEnabled(False)

    @Slot()
    def _fill_periods(self) -> None:
        self.period_menu.clear()
        for key, label in PERIODS:
            action = self._add_check(self.period_menu, label, key, key == self.period)
            self._period_group.addAction(action)

    @staticmethod
    def _add_check(menu: QMenu, label: str, data: str, checked: bool | None) -> QAction:
        action = menu.addAction(label)
        action.setData(data)
        if checked is not None:
            action.setCheckable(True)
            action.setChecked(checked)
        return action

    @Slot(QAction)
    def _on_folder_action(self, action: QAction) -> None:
        folder = str(action.data())
        if folder == CHOOSE:
            self._choose_folder()
        elif action.isChecked():
            self.set_folders([*self.folders, folder])
        else:
            self.set_folders([f for f in self.folders if f != folder])

    @Slot(QAction)
    def _on_type_action(self, action: QAction) -> None:
        ext = str(action.data())
        if action.isChecked():
            self.set_types([*self.types, ext])
        else:
            self.set_types([t for t in self.types if t != ext])

    @Slot(QAction)
    def _on_period_action(self, action: QAction) -> None:
        key = str(action.data())
        if key != "custom":
            self.set_period(key)
            return
        dialog = PeriodDialog(*self.custom, self.window())
        dialog.accepted.connect(self._on_period_chosen)
        self._open(dialog)

    @Slot()
    def _on_period_chosen(self) -> None:
        if isinstance(self._dialog, PeriodDialog):
            self.set_period("custom", *self._dialog.dates())

    def _choose_folder(self) -> None:
        start = self.folders[0] if self.folders else str(Path.home())
        dialog = QFileDialog(self.window(), "Search only in this folder", start)
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(self._on_folder_chosen)
        self._open(dialog)

    def _open(self, dialog: QDialog) -> None:
        """Show a dialog without blocking (window-modal); the one it replaces is freed."""
        if self._dialog is not None:
            self._dialog.deleteLater()
        self._dialog = dialog
        dialog.open()

    @Slot(str)
    def _on_folder_chosen(self, folder: str) -> None:
        if folder:
            folder = normalize(folder)
            self._chosen = list(dict.fromkeys([*self._chosen, folder]))
            self.set_folders([*self.folders, folder])
