"""Shared by the Python examples: where the data is, and a context for the GitHub spec."""
import sys
from pathlib import Path

import mapping

DATA = Path(sys.argv[1] if len(sys.argv) > 1 else "examples/data")


def open_context():
    return mapping.Context(DATA / "github.spec.json")


def payload():
    return (DATA / "github_events.json").read_bytes()
