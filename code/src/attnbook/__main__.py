"""``python -m attnbook``: the command line (see :mod:`attnbook.cli`)."""

import sys

from attnbook.cli import main

if __name__ == "__main__":
    sys.exit(main())
