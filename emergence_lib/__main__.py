"""python -m emergence_lib: see `emergence_lib.cli`."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while torch and the library load (seconds on a busy machine): nothing started
    print("interrupted: nothing was done", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
