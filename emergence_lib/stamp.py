"""What edition of the book a page is (issue 60 item 9): the library's version, the build's date, the commit it was
built from, and a short hash of ``data/``, so that a reader who cites a number can say which runs it came from."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import subprocess
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def data_hash(data: Path | None = None) -> str:
    """The first 12 hex digits of SHA-256 over every file under ``data/``: its path, then its bytes, in path order."""
    folder = data or ROOT / "data"
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(folder)).encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def _commit(root: Path) -> str:
    """The short commit the build ran on, marked "+changes" where the work tree differs from it; "no git" outside one."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True,
                               text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "no git"
    return head + ("+changes" if dirty else "")


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("emergence-lib")
    except PackageNotFoundError:
        return "unknown"


@lru_cache(maxsize=1)
def stamp(root: Path = ROOT) -> dict[str, str]:
    """The build's edition: version, date (UTC; ``$SOURCE_DATE_EPOCH`` where set, for a reproducible build), commit,
    data hash."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc) if epoch and epoch.isdigit() else dt.datetime.now(dt.timezone.utc)
    return {"version": version(), "date": when.strftime("%Y-%m-%d"), "commit": _commit(root), "data": data_hash(root / "data")}


def stamp_line(s: dict[str, str] | None = None) -> str:
    s = s or stamp()
    return f"Version {s['version']} · built {s['date']} · commit {s['commit']} · data/ SHA-256 {s['data']}"


def section_dates(path: Path, root: Path = ROOT) -> dict[str, tuple[str, str]]:
    """For each second-level heading (``## title``) of a Markdown file, the date (UTC) and short commit of the commit
    that added that line, read from ``git blame``; {} outside git. The errata page dates its entries with it."""
    try:
        out = subprocess.run(["git", "blame", "--porcelain", "--", str(path.relative_to(root))], cwd=root,
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError, ValueError):
        return {}
    dates: dict[str, tuple[str, str]] = {}
    commit_time: dict[str, int] = {}
    commit = ""
    for line in out.splitlines():
        head = line.split(" ", 1)[0]
        if len(head) == 40 and all(c in "0123456789abcdef" for c in head):
            commit = head
        elif line.startswith("author-time "):
            commit_time[commit] = int(line.split()[1])
        elif line.startswith("\t## "):
            when = dt.datetime.fromtimestamp(commit_time.get(commit, 0), dt.timezone.utc).strftime("%Y-%m-%d")
            dates[line[4:].strip()] = (when, "uncommitted" if set(commit) == {"0"} else commit[:7])
    return dates
