"""Shared helpers of the Python tests: the CLI binary, scenes written to a
temporary folder."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cli():
    """The `hourglass` binary that `cargo test --release` built (or HOURGLASS_BIN)."""
    path = Path(os.environ.get("HOURGLASS_BIN", ROOT / "target" / "release" / "hourglass"))
    if not path.is_file():
        pytest.fail(f"{path} not found: build it with `cargo build --release` (or set HOURGLASS_BIN)")

    def run(*args, check=True):
        r = subprocess.run([str(path), *map(str, args)], capture_output=True, text=True, timeout=600)
        if check and r.returncode != 0:
            raise AssertionError(f"hourglass {' '.join(map(str, args))} failed ({r.returncode}): {r.stderr}")
        return r

    return run


@pytest.fixture
def scene(tmp_path):
    """Write TOML text to a scene file in the test's folder; returns its path."""

    def write(text, name="scene.toml"):
        p = tmp_path / name
        p.write_text(text)
        return p

    return write
