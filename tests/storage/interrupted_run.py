"""Run by tests/storage/test_test_databases.py in a pytest of its own (the name matches no
test file, so the suite never collects it): creates a database as the suite's fixtures do,
writes its name to the file INTERRUPTED_RUN_NAME_FILE names, and waits to be interrupted."""

from __future__ import annotations

import asyncio
import faulthandler
import os
import signal
import time
from pathlib import Path

from tests import databases

# SIGUSR1 prints where every thread is: the test asks for it when the run is slow to end.
faulthandler.register(signal.SIGUSR1, all_threads=True)
# Ctrl-C as in a terminal: a process started by one that ignores SIGINT (a disposition that
# survives exec) would otherwise ignore it too, and sleep on.
signal.signal(signal.SIGINT, signal.default_int_handler)


def test_waits_to_be_interrupted() -> None:
    name = databases.new_name()
    asyncio.run(databases.create(name))
    Path(os.environ["INTERRUPTED_RUN_NAME_FILE"]).write_text(name)
    time.sleep(600)  # the run is interrupted long before: the test kills it at its end anyway
