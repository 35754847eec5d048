"""Where runs train: device names resolved and checked before any compute."""

from __future__ import annotations

from .configs import ConfigError


def check_device_name(device: object) -> str:
    """A device name's form ('auto', 'cpu', 'cuda', 'cuda:N'), checked without asking torch what the machine has."""
    if not isinstance(device, str) or not (device in ("auto", "cpu", "cuda") or
                                           (device.startswith("cuda:") and device[5:].isdigit())):
        shown = repr(device)
        shown = shown if len(shown) <= 60 else f"{shown[:40]}… ({len(shown):,} characters)"  # a 120 KB name was echoed whole
        raise ConfigError(f"device must be 'auto', 'cpu' or 'cuda[:N]', got {shown}")
    return device


def resolve_device(device: str) -> str:
    """'auto' → 'cuda' when available, else 'cpu'. A malformed name or an unavailable device is an error, before
    any compute."""
    import torch

    check_device_name(device)
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"device {device!r} is not available on this machine (no CUDA); use 'cpu' or 'auto'")
    return device


def cpu_threads(n: int) -> int:
    """Set torch's CPU threads to ``n`` and return the number it had (a recompute runs on one thread, as every stored
    run was computed: more threads sum a matmul in another order)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    return before
