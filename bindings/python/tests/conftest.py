import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

FIXTURES = Path(__file__).resolve().parents[3] / "Tests" / "fixtures"


@pytest.fixture
def fixtures():
    return FIXTURES


@pytest.fixture
def spec():
    return json.loads((FIXTURES / "people.spec.json").read_text())


@pytest.fixture
def ctx(spec):
    import mapping
    with mapping.Context(spec) as context:
        yield context
