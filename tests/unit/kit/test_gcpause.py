import gc

import pytest

from comptoir.kit import gcpause


def test_the_collector_resumes_when_the_last_of_overlapping_pauses_ends() -> None:
    assert gc.isenabled()
    first, second = gcpause.paused(), gcpause.paused()
    first.__enter__()
    second.__enter__()
    assert not gc.isenabled()
    first.__exit__(None, None, None)
    assert not gc.isenabled()  # the second still holds it
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled() -> None:
    gc.disable()
    try:
        with gcpause.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


async def test_a_pausing_coroutine_runs_paused_and_resumes_the_collector_even_when_it_raises() -> None:
    seen = []

    @gcpause.pausing
    async def work(fail: bool) -> str:
        seen.append(gc.isenabled())
        if fail:
            raise ValueError("refused")
        return "done"

    assert await work(False) == "done"
    assert gc.isenabled()
    with pytest.raises(ValueError, match="refused"):
        await work(True)
    assert gc.isenabled()
    assert seen == [False, False]


def test_a_serving_process_collects_the_young_generation_less_often() -> None:
    before = gc.get_threshold()
    try:
        gcpause.tune_for_serving()
        assert gc.get_threshold() == (gcpause.SERVING_THRESHOLD, before[1], before[2])
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_a_start_runs_paused_and_what_it_made_is_frozen_before_the_collector_resumes() -> None:
    before = gc.get_freeze_count()
    try:
        with gcpause.starting():
            assert not gc.isenabled()
            made = [[] for _ in range(1_000)]  # containers, which the collector tracks
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + len(made)
    finally:
        gc.unfreeze()
