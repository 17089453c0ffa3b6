"""gradekit.sandbox.memory: the process's address-space cap while a grader's function runs for the student."""

import resource

import numpy as np
import pytest

from gradekit.sandbox.memory import AddressSpaceCap, address_space

MIB = 1 << 20


def _under(limit: int, cap: int) -> int:
    return cap if limit == resource.RLIM_INFINITY else min(cap, limit)


def test_the_cap_lowers_the_soft_limit_and_the_last_release_puts_it_back():
    before = resource.getrlimit(resource.RLIMIT_AS)
    cap = AddressSpaceCap()
    first = address_space() + 2048 * MIB
    cap.hold(first)
    try:
        assert resource.getrlimit(resource.RLIMIT_AS) == (_under(before[0], first), before[1])
        cap.hold(first + 1024 * MIB)  # a second holder shares the first's cap
        assert resource.getrlimit(resource.RLIMIT_AS)[0] == _under(before[0], first)
        cap.release()
        assert resource.getrlimit(resource.RLIMIT_AS)[0] == _under(before[0], first)  # one still holds it
    finally:
        cap.release()
    assert resource.getrlimit(resource.RLIMIT_AS) == before


def test_an_allocation_past_the_cap_fails_and_one_within_it_does_not():
    cap = AddressSpaceCap()
    cap.hold(address_space() + 256 * MIB)
    try:
        with pytest.raises(MemoryError):
            np.ones(1024 * MIB // 8)
        assert np.ones(16 * MIB // 8).sum() == 16 * MIB // 8
    finally:
        cap.release()
    # the limit it replaced is back: the address space is reserved (the cap is on that, not on pages written;
    # filling 1 GiB of ones cost ~3 s of CPU and a GiB of memory for nothing more)
    assert np.empty(1024 * MIB // 8).size == 1024 * MIB // 8


def test_the_cap_never_raises_a_limit_the_process_has():
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    lower = address_space() + 1024 * MIB
    resource.setrlimit(resource.RLIMIT_AS, (lower, hard))
    cap = AddressSpaceCap()
    try:
        cap.hold(lower + 4096 * MIB)
        assert resource.getrlimit(resource.RLIMIT_AS)[0] == lower
        cap.release()
        assert resource.getrlimit(resource.RLIMIT_AS)[0] == lower
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
