"""A fresh virtual environment with a plugin package pip-installed into it, seeing bot-arena
as installed here: what a user has after `pip install` of a plugin."""

import shutil
import subprocess
import sys
import venv
from pathlib import Path


def venv_with_plugin(plugin: Path, root: Path) -> Path:
    """Make root/venv, pip-install a copy of the plugin directory into it (so that the
    in-tree build leaves nothing in examples/), and return its python."""
    env_dir = root / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = next((env_dir / "lib").glob("python3*/site-packages"))
    parents = [p for p in sys.path if p.endswith("site-packages")]
    (site / "parent.pth").write_text("".join(f"import site; site.addsitedir({p!r})\n" for p in parents))
    source = shutil.copytree(plugin, root / "src", ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__"))
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
         "--no-build-isolation", str(source)], capture_output=True, text=True, timeout=240, check=False)
    assert install.returncode == 0, install.stderr
    return python
