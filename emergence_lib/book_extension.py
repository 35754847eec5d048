"""A Sphinx extension for the book build (listed in ``_config.yml``): fixes to what Jupyter Book 1.x emits.

* The tables the chapters showed, written as CSV during execution (`report.save_table_csv`), are copied into the
  HTML as ``_tables/``, where each table's "CSV" link points.
* A figure pasted from a notebook (``{glue:figure}``) got its file name as alt text; it gets its caption instead,
  so that a screen reader reads what the figure shows.
* Jupyter Book 1.x and sphinx-thebe both run sphinx-thebe's set-up, so every page got its inline config script
  twice, and the second ``const THEBE_JS_URL`` raised a console error. Each page keeps one copy of every script.
"""

from __future__ import annotations

from typing import Any


def _script_id(script: Any) -> tuple[str, str]:
    """A script by what it loads or runs (its file, or an inline script's body), whatever priority it was added with.
    An inline script's filename is None or "" depending on who added it: both mean none."""
    attributes = getattr(script, "attributes", {}) or {}
    return str(getattr(script, "filename", script) or ""), str(attributes.get("body", ""))


def drop_duplicate_scripts(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple[str, str]] = set()
    kept = []
    for script in scripts:
        key = _script_id(script)
        if key in seen:
            continue
        seen.add(key)
        kept.append(script)
    scripts[:] = kept  # in place: the theme's templates may hold the same list


ALT_MAX_CHARS = 300


def _caption_of(node: Any) -> str:
    """The caption text of the figure that holds ``node`` ("" if none)."""
    from docutils import nodes

    parent = node.parent
    while parent is not None and not isinstance(parent, nodes.figure):
        parent = parent.parent
    if parent is None:
        return ""
    caption = next(iter(parent.findall(nodes.caption)), None)
    return " ".join(caption.astext().split()) if caption is not None else ""


def _alt_is_a_file_name(alt: str, uri: str) -> bool:
    return not alt.strip() or alt == uri or alt.rsplit("/", 1)[-1] == uri.rsplit("/", 1)[-1] or alt.endswith((".png", ".svg"))


def caption_as_alt_text(app: Any, doctree: Any, docname: str) -> None:
    from docutils import nodes

    for image in doctree.findall(nodes.image):
        if not _alt_is_a_file_name(image.get("alt", ""), image.get("uri", "")):
            continue
        caption = _caption_of(image)
        if caption:
            image["alt"] = caption if len(caption) <= ALT_MAX_CHARS else caption[: ALT_MAX_CHARS - 1] + "…"


def copy_table_csvs(app: Any, exception: Exception | None) -> None:
    import os
    import shutil

    from .report import TABLES_DIR_ENV

    folder = os.environ.get(TABLES_DIR_ENV)
    if exception is not None or not folder or not os.path.isdir(folder) or app.builder.format != "html":
        return
    target = os.path.join(app.outdir, "_tables")
    os.makedirs(target, exist_ok=True)
    for name in os.listdir(folder):
        if name.endswith(".csv"):
            shutil.copyfile(os.path.join(folder, name), os.path.join(target, name))


def setup(app: Any) -> dict[str, Any]:
    app.connect("build-finished", copy_table_csvs)
    app.connect("doctree-resolved", caption_as_alt_text)
    # After every other handler of the event, so that scripts added per page are seen too.
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
