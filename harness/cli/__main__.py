"""`python -m harness.cli`, as the tests start a fresh process."""
import sys

from harness.cli import main

sys.exit(main())
