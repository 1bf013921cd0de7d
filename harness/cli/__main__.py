"""`python -m harness.cli`, as the tests start a fresh process."""
import sys

from harness.entry_point import main

sys.exit(main())
