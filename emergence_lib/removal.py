"""Removing stored files all or nothing, as far as a file system allows: every file is checked before any is
removed (`clear` and `prune`), so a read-only store, an immutable or append-only file stops the verb with nothing
removed; a removal that fails anyway is one line that says how many went before it."""

from __future__ import annotations

import os
from pathlib import Path

from .checks import ConfigError


def remove_all(paths: list[Path]) -> None:
    """Check that every file of ``paths`` can be removed, then remove them."""
    check_removable(paths)
    _unlink_each(paths)


def check_removable(paths: list[Path]) -> None:
    """Before removing anything: every folder holding a file to remove accepts a removal (a read-only store or an
    immutable folder is named, and nothing is removed)."""
    for folder in sorted({p.parent for p in paths}):
        probe = folder / f".removal-probe.{os.getpid()}"
        try:
            probe.write_text("")
            probe.unlink()
        except OSError as exc:
            raise ConfigError(f"cannot remove files under {folder} ({exc.strerror or exc}); nothing was removed") from None
    for path in paths:  # an immutable or append-only file in a writable folder refuses removal, even to root
        if path.is_file() and (not os.access(path, os.W_OK) or pinned_by_attributes(path)):
            raise ConfigError(f"cannot remove {path} (it refuses changes: immutable, append-only or read-only); "
                              "nothing was removed")


def pinned_by_attributes(path: Path) -> bool:
    """Whether ``path`` carries Linux's immutable or append-only attribute (chattr +i / +a), which forbid removing
    it; False where the attributes cannot be read (another system: the unlink itself then reports)."""
    import fcntl
    import struct

    FS_IOC_GETFLAGS, IMMUTABLE, APPEND = 0x80086601, 0x10, 0x20
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        flags = struct.unpack("l", fcntl.ioctl(fd, FS_IOC_GETFLAGS, struct.pack("l", 0)))[0]
    except OSError:
        return False
    finally:
        os.close(fd)
    return bool(flags & (IMMUTABLE | APPEND))


def _unlink_each(paths: list[Path]) -> None:
    """Remove ``paths`` (checked by `check_removable` first); one that refuses anyway stops it in one line that
    says how many were removed before it."""
    for i, path in enumerate(paths):
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot remove {path} ({exc.strerror or exc}); {i} files were removed before it, "
                              f"{len(paths) - i} kept") from None
