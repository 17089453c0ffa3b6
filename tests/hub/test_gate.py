"""The hub exchange's door: every try counts toward a student's rate, uploads at once are few, bodies spool.

The Gate on a clock the test moves; the Spool on a real folder (tests/hub/test_hub_service.py and
test_serve_hub.py send the floods over HTTP to a real service).
"""

from __future__ import annotations

from gradekit.exchange.hub.gate import SPOOL, Gate, Spool


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_every_try_counts_and_the_wait_is_until_the_oldest_leaves_the_minute():
    clock = Clock()
    gate = Gate(per_minute=3, at_once=2, clock=clock)
    for _ in range(3):
        assert gate.wait("eve") == 0
        gate.tried("eve")
        clock.now += 10
    assert gate.wait("eve") == 31          # the first try, 30 s ago, leaves the window in 30 s
    assert gate.wait("bob") == 0           # one student's limit is theirs alone
    clock.now += 31
    assert gate.wait("eve") == 0


def test_the_records_count_too_after_a_restart():
    gate = Gate(per_minute=3, at_once=2, clock=Clock())
    assert gate.wait("ada", accepted=[50.0, 20.0]) == 0
    assert gate.wait("ada", accepted=[50.0, 20.0, 5.0]) == 11      # the try 50 s ago leaves in 10 s


def test_a_known_token_is_refused_without_asking_the_hub_only_while_its_user_must_wait():
    clock = Clock()
    gate = Gate(per_minute=1, at_once=2, clock=clock)
    gate.saw("tok-eve", "eve")
    assert gate.known("tok-eve") is None        # eve may try: the hub is asked
    gate.tried("eve")
    assert gate.known("tok-eve") == "eve"
    assert gate.known("tok-other") is None and gate.known("") is None
    clock.now += 61
    assert gate.known("tok-eve") is None


def test_one_refusal_a_minute_is_logged():
    clock = Clock()
    gate = Gate(per_minute=1, at_once=2, clock=clock)
    assert gate.loud("eve", "rate") and not gate.loud("eve", "rate") and gate.loud("bob", "rate")
    assert gate.loud("eve", "at once")          # another reason: its own first line
    clock.now += 61
    assert gate.loud("eve", "rate")


def test_uploads_at_once():
    gate = Gate(per_minute=10, at_once=2)
    assert gate.take("eve") and gate.take("eve") and not gate.take("eve")
    assert gate.take("bob")
    gate.give("eve")
    assert gate.sending("eve") == 1 and gate.take("eve")
    gate.give("eve"), gate.give("eve"), gate.give("eve")
    assert gate.sending("eve") == 0


def test_a_body_spools_to_disk_and_nothing_is_kept_past_the_cap(tmp_path):
    spool = Spool(tmp_path / "incoming", cap=3 * SPOOL)
    chunk = b"x" * (SPOOL // 2)
    for _ in range(4):
        spool.write(chunk)
    assert spool.file._rolled                     # past SPOOL bytes: on disk, not in memory
    assert spool.read() == chunk * 4 and not spool.over
    for _ in range(4):
        spool.write(chunk)
    assert spool.over and spool.size == 8 * len(chunk) and len(spool.read()) == 3 * SPOOL
    assert (tmp_path / "incoming").stat().st_mode & 0o077 == 0
    spool.close()
    assert list((tmp_path / "incoming").iterdir()) == []          # an unnamed file: nothing left behind


def test_a_flooder_s_refusals_are_held_past_a_few_a_minute_a_few_at_a_time():
    from gradekit.exchange.hub.gate import SLOW_AFTER, SLOWED_AT_ONCE

    clock = [0.0]
    gate = Gate(10, 2, clock=lambda: clock[0])
    assert not any(gate.slow("eve") for _ in range(SLOW_AFTER))           # the first ones answered at once
    held = [gate.slow("eve") for _ in range(SLOWED_AT_ONCE + 2)]
    assert held == [True] * SLOWED_AT_ONCE + [False, False]               # a few held at a time, no more
    assert not gate.slow("bob")                                           # hers alone
    gate.let_go("eve")
    assert gate.slow("eve")                                               # one let go: one more held
    clock[0] += 61
    for _ in range(SLOWED_AT_ONCE):
        gate.let_go("eve")
    assert not gate.slow("eve")                                           # a new minute: at once again
