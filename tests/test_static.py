"""Static checks as tests, so the README's test command (which CI runs) runs them:
ruff over all the Python in the repository, mypy over the packages (settings in pyproject.toml)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUFF_PATHS = ["arena", "bots", "tests", "benchmarks", "examples"]
MYPY_PATHS = ["arena", "bots"]


def run_tool(*args: str) -> subprocess.CompletedProcess:
    # from the repository root, so both tools read pyproject.toml and mypy reuses .mypy_cache
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing():
    result = run_tool("ruff", "check", "--no-fix", "--output-format", "concise", *RUFF_PATHS)
    assert result.returncode == 0, f"ruff check {' '.join(RUFF_PATHS)}:\n{result.stdout}{result.stderr}"


def test_mypy_finds_nothing():
    result = run_tool("mypy", *MYPY_PATHS)
    assert result.returncode == 0, f"mypy {' '.join(MYPY_PATHS)}:\n{result.stdout}{result.stderr}"
