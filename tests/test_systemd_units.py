"""The systemd unit files in deploy/systemd/ (issue 19 item 5), checked by systemd itself.

``systemd-analyze verify`` reads each unit as systemd would: unknown keys, values it
cannot parse and commands that do not exist are reported. It exits 0 even for an
unknown key (it only warns), so the check is its exit status *and* an empty report for
our files. The units name the installed paths (/opt/silver-eye-post); for the check a
copy points them at this checkout and its virtualenv, so "ExecStart is not executable"
means a command that really is missing. A planted typo shows the check sees mistakes.
Skipped where systemd-analyze is not installed, except in CI (``CI`` set): there it fails.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.outside_tools import outside_tool

ROOT = Path(__file__).resolve().parent.parent
UNITS = ROOT / "deploy" / "systemd"
INSTALLED = "/opt/silver-eye-post"
SERVICES = ("web", "clock", "inbound", "migrate", "backup")
LONG_RUNNING = ("web", "clock", "inbound")
SUFFIXES = (".service", ".target", ".timer")


def analyze() -> str:
    return outside_tool("systemd-analyze", "systemd")


def here(text: str) -> str:
    """A unit's text with the installed paths replaced by this checkout's."""
    venv_bin = str(Path(sys.executable).parent)
    return (text.replace(f"{INSTALLED}/.venv/bin", venv_bin)
            .replace(INSTALLED, str(ROOT)))


def verify(folder: Path) -> tuple[int, list[str]]:
    """``systemd-analyze verify`` over every unit of ``folder``: its exit status and the
    report lines about those units."""
    units = sorted(str(path) for path in folder.iterdir()
                   if path.suffix in SUFFIXES)
    done = subprocess.run([analyze(), "verify", "--man=no", *units], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "SYSTEMD_PAGER": "cat"})
    names = [Path(unit).name for unit in units]
    report = [line for line in (done.stderr + done.stdout).splitlines()
              if str(folder) in line or any(name in line for name in names)]
    return done.returncode, report


def copied(tmp_path: Path, change: tuple[str, str, str] | None = None) -> Path:
    folder = tmp_path / "units"
    folder.mkdir()
    for unit in UNITS.iterdir():
        if unit.suffix in SUFFIXES:
            text = here(unit.read_text())
            if change is not None and unit.name == change[0]:
                assert change[1] in text
                text = text.replace(change[1], change[2])
            (folder / unit.name).write_text(text)
    return folder


def test_systemd_finds_nothing_wrong_with_the_unit_files(tmp_path):
    status, report = verify(copied(tmp_path))

    assert status == 0, report
    assert report == []


def test_the_check_sees_a_mistyped_key_and_a_missing_command(tmp_path):
    folder = copied(tmp_path, ("silver-eye-post-clock.service", "NoNewPrivileges=",
                               "NoNewPrivilegs="))
    status, report = verify(folder)
    assert any("Unknown key" in line and "NoNewPrivilegs" in line for line in report), report

    (tmp_path / "units").rename(tmp_path / "typo")
    folder = copied(tmp_path, ("silver-eye-post-web.service", "/gunicorn ", "/no-such-gunicorn "))
    status, report = verify(folder)
    assert status != 0 and any("no-such-gunicorn" in line for line in report), report


def unit(name: str) -> dict[str, list[str]]:
    """``key -> values`` of a unit file (every section; comments dropped)."""
    values: dict[str, list[str]] = {}
    for line in (UNITS / name).read_text().splitlines():
        match = re.match(r"^([A-Za-z]+)=(.*)$", line)
        if match:
            values.setdefault(match.group(1), []).append(match.group(2))
    return values


@pytest.mark.parametrize("service", SERVICES)
def test_every_service_runs_as_its_own_user_hardened_with_the_shared_settings(service):
    keys = unit(f"silver-eye-post-{service}.service")
    assert keys["User"] == ["silver-eye-post"] and keys["WorkingDirectory"] == [INSTALLED]
    assert keys["EnvironmentFile"] == ["/etc/silver-eye-post/env"]
    for key, value in [("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"),
                       ("PrivateTmp", "yes"), ("ProtectHome", "yes"), ("PrivateDevices", "yes"),
                       ("CapabilityBoundingSet", "")]:
        assert keys[key] == [value], key
    writes = keys["ReadWritePaths"][0].split()
    assert writes[0] == f"{INSTALLED}/instance", "the SQLite file and the key, nothing else"
    assert writes[1:] == (["/var/backups/silver-eye-post"] if service == "backup" else [])
    if service in LONG_RUNNING:
        assert keys["Restart"] == ["on-failure"]
    if service in ("clock", "inbound"):  # issue 34 item 5: pinged by their own loop
        assert keys["Type"] == ["notify"] and keys["NotifyAccess"] == ["main"]
        assert int(keys["WatchdogSec"][0]) > 0
        assert f"silver-eye-post-{service}.service" in unit("silver-eye-post.target")["Wants"][0]


def test_the_services_run_what_the_procfile_runs():
    procfile = dict(line.split(": ", 1) for line in (ROOT / "Procfile").read_text().splitlines()
                    if ": " in line)
    web = unit("silver-eye-post-web.service")["ExecStart"][0]
    assert web.startswith(f"{INSTALLED}/.venv/bin/gunicorn ") and "app:create_app()" in web
    assert "'app:create_app()'" in procfile["web"]
    for name in ("clock", "inbound"):
        command = unit(f"silver-eye-post-{name}.service")["ExecStart"][0]
        assert command == f"{INSTALLED}/.venv/bin/{procfile[name]}"
    backup = unit("silver-eye-post-backup.service")["ExecStart"][0]
    assert f"{INSTALLED}/.venv/bin/flask --app app backup " in backup
    assert unit("silver-eye-post-backup.timer")["Persistent"] == ["true"]
    migrate = unit("silver-eye-post-migrate.service")["ExecStart"][0]
    assert migrate == f"{INSTALLED}/.venv/bin/{procfile['release']}"
