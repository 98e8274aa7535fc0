"""`python -m rag.cli ...` runs the command line, as `rag ...` does."""

import sys

from rag.cli.main import main

sys.exit(main())
