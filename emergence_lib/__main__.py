"""python -m emergence_lib: see `emergence_lib.cli`."""

import sys

from .cli import main

sys.exit(main())
