"""`python -m fieldnotes run --shard K/N` (see fieldnotes/shard.py); `python -m fieldnotes record [PATH ...]`
(fieldnotes/record.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fieldnotes.shard import parse_shard, run_shard


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m fieldnotes")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run examples into the store and report their drift")
    run.add_argument("--shard", default="1/1", help="K/N: the K-th of N shards (default: all examples)")
    record = commands.add_parser("record", help="record what the examples and the pages' blocks print")
    record.add_argument("paths", nargs="*", help="only snippets or pages under these paths; default: all")
    arguments = parser.parse_args(argv)
    if arguments.command == "record":
        from fieldnotes import record as recording

        return recording.main(Path.cwd(), arguments.paths)
    try:
        shard, shards = parse_shard(arguments.shard)
    except ValueError as error:
        parser.error(str(error))
    return run_shard(Path.cwd(), shard, shards)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
