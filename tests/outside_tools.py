"""The programs some tests run from outside (SpamAssassin, systemd-analyze, promtool):
found on the PATH, else the test is skipped here, and fails under CI, whose ``.ci/run``
installs each from Debian's packages."""
from __future__ import annotations

import os
import shutil

import pytest


def outside_tool(name: str, package: str) -> str:
    """The path of ``name``; skip (fail under CI) when it is not installed."""
    found = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}")
                                   else None)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed: .ci/run installs Debian's {package}")
        pytest.skip(f"{name} is not installed (CI installs Debian's {package})")
    return found
