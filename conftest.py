"""Shared fixtures, and the test tiers (markers ``unit``, ``integration``, ``notebooks``, ``browser``).

    make unit          # pytest -m unit: the library's functions, under a minute
    make integration   # pytest -m integration: real entry points, subprocesses, recomputed stored runs
    make notebooks     # every chapter at scale="smoke" under nbval
    make browser       # the built book in headless Chromium (after make book)
    make test          # all of them: unit, notebooks, integration, the book build, browser (the CI command)

A module's tier is set here, in one place (this file sits at the root so that it also marks the
prepared chapters under _build/smoke); a test inside a unit module that needs more can say
``@pytest.mark.integration`` itself.
"""

import pytest

INTEGRATION_MODULES = {"test_cache_reproduces", "test_entry_points", "test_executors", "test_faults", "test_process_cleanup",
                       "test_mutation", "test_registration"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if any(item.get_closest_marker(m) for m in ("integration", "notebooks", "browser")):
            continue
        path = getattr(item, "path", None)
        if path is not None and path.suffix == ".ipynb":
            item.add_marker(pytest.mark.notebooks)
        elif path is not None and path.stem in INTEGRATION_MODULES:
            item.add_marker(pytest.mark.integration)
        else:
            item.add_marker(pytest.mark.unit)
