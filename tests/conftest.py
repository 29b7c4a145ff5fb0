"""Fixtures more than one test module uses."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from made_once import made_once, session_dir

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def example_plugin_wheel(tmp_path_factory) -> Path:
    """examples/arena-example-plugin as a wheel, built once a session (for every xdist
    worker: tests/made_once.py) by pip with setuptools (from a copy: an in-tree build would
    leave build/ and an egg-info in examples/)."""
    def build(folder: Path) -> None:
        source = shutil.copytree(ROOT / "examples" / "arena-example-plugin", folder / "src",
                                 ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                                "--no-index", "--wheel-dir", str(folder / "wheels"), str(source)],
                               capture_output=True, text=True, timeout=240, check=False)
        assert built.returncode == 0, built.stderr
    folder = made_once(session_dir(tmp_path_factory), "example-plugin-wheel", build)
    [wheel] = (folder / "wheels").glob("*.whl")
    return wheel
