"""Fixtures more than one test module uses."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def example_plugin_wheel(tmp_path_factory) -> Path:
    """examples/arena-example-plugin as a wheel, built once a session by pip with setuptools
    (from a copy: an in-tree build would leave build/ and an egg-info in examples/)."""
    folder = tmp_path_factory.mktemp("example-plugin-wheel")
    source = shutil.copytree(ROOT / "examples" / "arena-example-plugin", folder / "src",
                             ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                            "--no-index", "--wheel-dir", str(folder / "wheels"), str(source)],
                           capture_output=True, text=True, timeout=240, check=False)
    assert built.returncode == 0, built.stderr
    [wheel] = (folder / "wheels").glob("*.whl")
    return wheel
