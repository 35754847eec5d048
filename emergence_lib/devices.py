"""Where runs train: device names resolved and checked before any compute."""

from __future__ import annotations

from .configs import ConfigError


def resolve_device(device: str) -> str:
    """'auto' → 'cuda' when available, else 'cpu'. An unavailable device is an error, before any compute."""
    import torch

    if not isinstance(device, str):
        raise ConfigError(f"device must be 'auto', 'cpu' or 'cuda[:N]', got {device!r}")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        return device
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ConfigError(f"device {device!r} is not available on this machine (no CUDA); use 'cpu' or 'auto'")
        return device
    raise ConfigError(f"device must be 'auto', 'cpu' or 'cuda[:N]', got {device!r}")
