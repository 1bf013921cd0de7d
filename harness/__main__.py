"""`python -m harness`: the `harness` command, for an environment whose scripts folder is not on PATH."""
import sys

from harness.entry_point import main

sys.exit(main())
