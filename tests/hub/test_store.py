"""The hub exchange's store on SQLite and on PostgreSQL: one hand-in per key, nothing changed, nothing lost.

PostgreSQL is a throwaway server on loopback (tests/pgserver.py); without Debian's
postgresql its half is skipped, with the reason.
"""

from __future__ import annotations

import datetime as dt
import stat
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("sqlalchemy")

from gradekit.exchange.hub.store import Store  # noqa: E402
from gradekit.exchange.handin import files_sha256  # noqa: E402
from gradekit.untrusted import HandinLimits, pack_zip, read_handin_zip  # noqa: E402


@pytest.fixture(scope="module")
def postgres():
    from pgserver import PostgresServer, pg_bindir

    if pg_bindir() is None:
        pytest.skip("needs Debian's postgresql (make system-deps)")
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    url = ""
    if request.param == "postgresql":
        server = request.getfixturevalue("postgres")
        url = server.createdb(f"exchange_{tmp_path.name[-12:].replace('-', '_').lower()}")
    s = Store(tmp_path / "store", url)
    yield s
    s.close()


def test_the_store_keeps_each_hand_in_once_and_its_files_private(store):
    files = {"hw.ipynb": b'{"cells": []}', "data/x.csv": b"1,2\n"}
    data = pack_zip(files)
    assert store.release("c101", "hw", "ada", pack_zip({"hw.ipynb": b"{}"}), force=False)
    assert not store.release("c101", "hw", "ada", pack_zip({"hw.ipynb": b"{}"}), force=False)
    first, new = store.handin("c101", "hw", "ada", "k" * 16, files)
    again, new_again = store.handin("c101", "hw", "ada", "k" * 16, files)
    assert new and not new_again and again == first
    assert first.sha256 == files_sha256(files) and first.nfiles == 2
    assert read_handin_zip(store.blob(first.blob), HandinLimits()) == files
    other, _ = store.handin("c101", "hw", "bob", "k" * 16, files)   # the key is ada's own
    assert other.id > first.id and other.user == "bob"
    assert [h.id for h in store.handins("c101", user="ada")] == [first.id]
    assert [h.id for h in store.handins("c101", after=first.id)] == [other.id]
    store.give_feedback(first, {"hw": "<p>page</p>"})
    store.give_feedback(first, {"hw": "<p>page 2</p>"})   # given again: replaced, not doubled
    assert store.feedback([first.id])[first.id]["hw"]["html"] == "<p>page 2</p>"
    assert store.feedback([other.id]) == {}
    # the folder is the service's account's alone (its command runs with umask 077: what SQLite adds too)
    assert stat.S_IMODE(store.folder.stat().st_mode) == 0o700
    for path in [*store.folder.glob("blobs/*"), *store.folder.glob("exchange.sqlite")]:
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path


def test_a_class_handing_in_at_once_gets_a_number_each(store):
    files = {"hw.ipynb": b"{}"}
    data = pack_zip(files)

    def hand_in(i: int):
        return store.handin("c101", "hw", f"s{i % 20}", f"key-{i:012d}", files)[0].id

    with ThreadPoolExecutor(8) as pool:
        numbers = list(pool.map(hand_in, range(120)))
    assert len(set(numbers)) == 120
    since = dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(seconds=60)
    assert len(store.recent("c101", "s3", since)) == 6


def test_the_limits_by_default():
    from gradekit.exchange.hub.wire import Limits

    assert (Limits().max_mb, Limits().max_files, Limits().per_minute) == (20, 50, 10)
    assert HandinLimits().max_bytes == 20 << 20 and HandinLimits().max_files == 50
