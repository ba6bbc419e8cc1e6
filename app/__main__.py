"""``python -m app`` is the same as the ``footnotes`` command."""

import sys

from app.cli import main

sys.exit(main())
