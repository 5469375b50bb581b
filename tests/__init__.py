"""The suite (tests/conftest.py). Its bytecode is cached, in the __pycache__ folders git
ignores, also where PYTHONDONTWRITEBYTECODE=1 is set: otherwise each xdist process rewrites the
asserts of every test module again as it collects them (half of the ~16 s of CPU a collection
takes), and every `comptoir` process the tests start compiles the package again. Imported
before tests/conftest.py, so the package's own modules are cached too."""

import sys

sys.dont_write_bytecode = False
