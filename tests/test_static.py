"""Static checks as tests, so the README's test command (which CI runs) runs them:
ruff over all the Python in the repository, mypy over the packages (settings in pyproject.toml);
and the package ships its types (arena/py.typed)."""

import fnmatch
import importlib.resources
import subprocess
import sys
import tomllib
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


def test_the_package_ships_its_types():
    # PEP 561: arena/py.typed tells mypy and other checkers that code importing arena is to be
    # checked against its annotations; the package as installed has it, and the wheel's
    # package data (pyproject.toml) includes it, so an installed wheel has it too
    assert importlib.resources.files("arena").joinpath("py.typed").is_file(), "arena/py.typed is missing"
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert any(fnmatch.fnmatch("py.typed", pattern) for pattern in package_data.get("arena", [])), \
        f"pyproject.toml's [tool.setuptools.package-data] arena = {package_data.get('arena')} ships no py.typed"
