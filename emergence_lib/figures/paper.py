"""The paper's numbers live in `emergence_lib.paper` (one module with no imports, so that the engine's estimate can
read them too); re-exported here for the figure grids and the chapters."""

from ..paper import PAPER

__all__ = ["PAPER"]
