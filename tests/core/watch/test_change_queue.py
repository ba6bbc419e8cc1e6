"""Changed paths waiting to be indexed, driven by hand with explicit times (no sleeps):
coalesced per path, debounced by a quiet period, renames first and in order."""

from __future__ import annotations

import pytest

from app.core.watch.change_queue import Batch, ChangeQueue


def test_save_storm_coalesces_into_one_path_after_the_quiet_period() -> None:
    q = ChangeQueue(quiet=0.4, max_wait=3.0)
    for t in (0.0, 0.1, 0.2, 0.3):  # write, close, rename over, touch
        q.touch("/w/note.md", t)
    assert q.take(0.6) == ([], [])  # 0.3 s since the last event: still settling
    assert q.next_due() == pytest.approx(0.7)
    assert q.take(0.7).paths == ["/w/note.md"]
    assert len(q) == 0 and q.next_due() is None


def test_a_file_that_never_settles_is_taken_after_max_wait() -> None:
    q = ChangeQueue(quiet=0.4, max_wait=3.0)
    t = 0.0
    while t < 2.9:
        q.touch("/w/log.md", t)
        t += 0.1
    assert q.take(2.95) == ([], [])
    assert q.take(3.0).paths == ["/w/log.md"]


def test_moves_carry_pending_changes_and_folders_cover_their_files() -> None:
    q = ChangeQueue(quiet=0.4, max_wait=3.0)
    q.touch("/w/a/x.md", 0.0)
    q.move("/w/a", "/w/b", 0.1)
    q.touch("/w/new", 0.2)
    q.touch("/w/new/deep/y.md", 0.2)
    q.touch("/w/new-sibling.md", 0.2)
    assert q.next_due() == float("-inf")  # renames are applied at once
    first = q.take(0.2)
    assert first.moves == [("/w/a", "/w/b")] and first.paths == []
    batch = q.take(1.0)
    assert batch.paths == ["/w/b/x.md", "/w/new", "/w/new-sibling.md"]


def test_each_path_is_due_on_its_own_clock() -> None:
    q = ChangeQueue(quiet=0.4, max_wait=3.0)
    q.touch("/w/a.md", 0.0)
    q.touch("/w/b.md", 0.3)
    assert len(q) == 2
    assert q.take(0.4).paths == ["/w/a.md"]
    assert q.take(0.5).paths == []
    assert q.take(0.7).paths == ["/w/b.md"]


def test_renames_are_kept_in_arrival_order_and_a_batch_names_every_path_it_touches() -> None:
    q = ChangeQueue()
    q.move("/w/a.md", "/w/b.md", 0.0)
    q.move("/w/b.md", "/w/c.md", 0.1)
    q.touch("/w/d.md", 0.0)
    batch = q.take(10.0)
    assert batch.moves == [("/w/a.md", "/w/b.md"), ("/w/b.md", "/w/c.md")]
    assert batch.touched() == ["/w/a.md", "/w/b.md", "/w/b.md", "/w/c.md", "/w/d.md"]
    assert q.take(11.0) == Batch([], [])


def test_a_move_onto_a_path_with_pending_changes_keeps_the_earliest_first_event() -> None:
    q = ChangeQueue(quiet=0.4, max_wait=3.0)
    q.touch("/w/old/x.md", 0.0)
    q.touch("/w/new/x.md", 2.2)
    q.move("/w/old", "/w/new", 2.3)
    assert q.take(2.3) == Batch([("/w/old", "/w/new")], [])  # the rename, at once
    q.touch("/w/new/x.md", 2.8)  # still changing: due at max_wait after its first event
    assert q.next_due() == pytest.approx(3.0)
    assert q.take(3.0).paths == ["/w/new/x.md"]


def test_a_sibling_with_a_common_prefix_is_not_covered_by_a_folder() -> None:
    q = ChangeQueue(quiet=0.1)
    for path in ("/w/notes", "/w/notes/a.md", "/w/notes-old/b.md"):
        q.touch(path, 0.0)
    assert q.take(1.0).paths == ["/w/notes", "/w/notes-old/b.md"]
