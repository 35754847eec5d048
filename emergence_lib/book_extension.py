"""A Sphinx extension for the book build (listed in ``_config.yml``): fixes to what Jupyter Book 1.x emits.

* Jupyter Book 1.x and sphinx-thebe both run sphinx-thebe's set-up, so every page got its inline config script
  twice, and the second ``const THEBE_JS_URL`` raised a console error. Each page keeps one copy of every script.
"""

from __future__ import annotations

from typing import Any


def _script_id(script: Any) -> str:
    """A script by what it loads or runs: Sphinx's ``_JavaScript.__str__`` names its file, priority and attributes
    (an inline script's ``body`` among them)."""
    return str(script)


def drop_duplicate_scripts(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[str] = set()
    kept = []
    for script in scripts:
        key = _script_id(script)
        if key in seen:
            continue
        seen.add(key)
        kept.append(script)
    context["script_files"] = kept


def setup(app: Any) -> dict[str, Any]:
    # After every other handler of the event, so that scripts added per page are seen too.
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
