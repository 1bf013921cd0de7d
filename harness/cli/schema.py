"""`harness schema`: the suite file's JSON Schema (for editors and validators), or with `--record` a run record's."""
from __future__ import annotations

import argparse
import json

NAME = "schema"
HELP = "print the suite file's JSON Schema"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--record", action="store_true",
                        help="print the JSON Schema of a run record (a store row, a record file) instead")


def handle(args: argparse.Namespace) -> int:
    if args.record:
        from harness.record import record_json_schema

        schema = record_json_schema()
    else:
        from harness.suite import json_schema

        schema = json_schema()
    print(json.dumps(schema, indent=2))
    return 0
