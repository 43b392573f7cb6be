"""The tests' cache of generated fixtures (cached.py): made once per key, made again when
the key or the files change, never left half-made."""

from __future__ import annotations

import pytest

from cached import cached


def make_greeting(folder):
    (folder / "sub").mkdir()
    (folder / "sub" / "greeting.txt").write_text("hello")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VIDEOREVIEW_TEST_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def counted(calls):
    def make(folder):
        calls.append(folder)
        make_greeting(folder)
    return make


def test_a_thing_is_made_once_per_key_and_the_old_key_is_removed(cache):
    calls = []
    first = cached("greeting", [make_greeting], counted(calls), arguments=[1])
    assert (first / "sub" / "greeting.txt").read_text() == "hello" and first.parent == cache
    assert cached("greeting", [make_greeting], counted(calls), arguments=[1]) == first and len(calls) == 1
    other = cached("greeting", [make_greeting], counted(calls), arguments=[2])
    assert other != first and len(calls) == 2
    assert sorted(p.name for p in cache.iterdir()) == [other.name]  # nothing half-made either
    assert calls[0] != first  # built beside it, then renamed into place


def test_a_changed_entry_is_made_again(cache):
    calls = []
    folder = cached("greeting", [make_greeting], counted(calls))
    (folder / "sub" / "greeting.txt").write_text("changed by a test")
    assert cached("greeting", [make_greeting], counted(calls)) == folder and len(calls) == 2
    assert (folder / "sub" / "greeting.txt").read_text() == "hello"
    (folder / "sub" / "extra.txt").write_text("")
    cached("greeting", [make_greeting], counted(calls))
    assert len(calls) == 3 and not (folder / "sub" / "extra.txt").exists()


def test_a_failed_make_leaves_nothing(cache):
    def fail(folder):
        make_greeting(folder)
        raise RuntimeError("killed")

    with pytest.raises(RuntimeError, match="killed"):
        cached("greeting", [make_greeting], fail)
    assert list(cache.iterdir()) == []
