# Two commands do all the set-up on a fresh machine (Python 3.11 + package registries):
#   make book   # venv + install + build the HTML book into _build/html
#   make test   # venv + install + unit tests + every chapter at scale="smoke" (nbval) + integration tests + the book build + the built book in Chromium
#   make pdf    # the built book (landing page and chapters) as one PDF, _build/book.pdf
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SMOKE_DIR := _build/smoke

# The library's own modules compile once per clone instead of in every process (kernels, test workers, subprocesses):
# where the environment sets PYTHONDONTWRITEBYTECODE, as this project's machines do, each process spent about 0.6 s
# compiling emergence_lib again. (pip compiles the installed packages itself.)
unexport PYTHONDONTWRITEBYTECODE

.PHONY: book test unit integration notebooks browser browser-deps clean bench pdf

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[book,test]"
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3" > /dev/null
	touch $(STAMP)

# Chapters execute at their default scale ("cpu") and read data/; only missing runs are computed.
# Each chapter also logs the claims it judged into _build/claims (read by the scoreboard's forest plot) and its
# tables as CSV into _build/tables (copied into the HTML, linked from each table); both emptied first.
# The pages execute first, two at a time, into the execution cache the build then reads (emergence_lib/book_execute.py).
BOOK_ENV := OMP_NUM_THREADS=1 EMERGENCE_CLAIMS_LOG=$(CURDIR)/_build/claims EMERGENCE_TABLES_DIR=$(CURDIR)/_build/tables
book: $(STAMP)
	rm -rf _build/claims _build/tables
	$(BOOK_ENV) $(PY) -m emergence_lib.book_execute
	$(BOOK_ENV) $(VENV)/bin/jupyter-book build --all --warningiserror --keep-going .

# Test tiers (markers set in tests/conftest.py): unit (under two minutes), integration, notebooks. Two workers, one per
# core of the CI machine (the tests share no files outside their tmp_path; each starts its own subprocesses), each
# torch on one thread: with two threads a worker the checkpoint fault tests took 170 s instead of 27. The integration
# tier's workers steal queued tests from each other, so that a long test started last leaves no core idle.
# mypy (about a minute of one core on a fresh clone) runs beside the unit tests; its report is printed after them.
unit: $(STAMP)
	$(VENV)/bin/ruff check emergence_lib tests
	@mkdir -p _build; $(VENV)/bin/mypy > _build/mypy.log 2>&1 & mypy=$$!; \
	OMP_NUM_THREADS=1 $(PY) -m pytest -m unit tests --ignore=tests/test_book_in_browser.py -n 2; status=$$?; \
	wait $$mypy; mypy_status=$$?; echo "mypy:"; cat _build/mypy.log; \
	if [ $$status -eq 0 ]; then exit $$mypy_status; else exit $$status; fi

# After `make notebooks` (as in `make test`), the tests that run a smoke grid a chapter ran read its runs
# (tests/conftest.py: notebooks_smoke_cache); alone, they train them.
integration: $(STAMP)
	OMP_NUM_THREADS=1 EMERGENCE_NOTEBOOKS_CACHE=$(CURDIR)/$(SMOKE_DIR)/cache $(PY) -m pytest -m integration tests --ignore=tests/test_book_in_browser.py -n 2 --dist worksteal --durations=10

# Every chapter, with papermill's parameter injection set to scale="smoke", under nbval.
notebooks: $(STAMP)
	rm -rf $(SMOKE_DIR)
	$(PY) -m emergence_lib prepare --scale smoke --out $(SMOKE_DIR) chapters/*.ipynb
	# One scratch cache for all smoke chapters, so that runs two chapters share are computed once (never data/; its
	# locks let two chapters share it). Two chapters at a time, one thread each: a notebook's cells stay in one worker
	# and in order (--dist loadscope).
	OMP_NUM_THREADS=1 EMERGENCE_SMOKE_CACHE=$(CURDIR)/$(SMOKE_DIR)/cache $(PY) -m pytest -m notebooks --nbval-lax --nbval-current-env \
		-n 2 --dist loadscope --durations=12 $(SMOKE_DIR)

# The built book in a real browser: Debian's chromium and chromium-driver, installed here when missing.
browser-deps:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		echo "chromium or chromedriver missing: installing Debian's chromium and chromium-driver for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	else echo "the browser tests need chromium and chromedriver: apt-get install chromium chromium-driver (as root)"; exit 1; fi

browser: $(STAMP) browser-deps
	$(PY) -m pytest -m browser tests/test_book_in_browser.py -s

# Each tier in turn; the notebooks before the integration tests, which read their smoke runs. Each tier's wall time is
# printed at the end, also when one fails (the tiers run so far, then the failure), then make test's own. (The book
# build beside the integration tests was tried: four processes on two cores took longer than the two tiers in turn.)
TIERS := unit notebooks integration book browser
test: $(STAMP)
	@mkdir -p _build; : > _build/tier_times.txt; start=$$(date +%s); status=0; \
	for tier in $(TIERS); do \
	  t0=$$(date +%s); $(MAKE) --no-print-directory $$tier || status=$$?; \
	  echo "  $$tier: $$(( $$(date +%s) - t0 )) s" >> _build/tier_times.txt; \
	  if [ $$status -ne 0 ]; then echo "  ($$tier failed)" >> _build/tier_times.txt; break; fi; \
	done; \
	echo "make test, each tier's wall time:"; cat _build/tier_times.txt; \
	echo "  make test: $$(( $$(date +%s) - start )) s"; exit $$status

# The landing page and the chapters, as built, in one PDF (headless Chromium, as the browser tier uses).
pdf: book browser-deps
	$(PY) -m emergence_lib.book_pdf _build/html _build/book.pdf

clean:
	rm -rf _build

# On demand, not part of the tests: prints speed ratios measured in one run.
bench: $(STAMP)
	$(PY) bench/toy_vectorisation.py
	$(PY) bench/transformer_speed.py
	$(PY) bench/executors.py
	OMP_NUM_THREADS=1 $(PY) bench/host_precision.py
