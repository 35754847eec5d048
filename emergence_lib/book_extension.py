"""A Sphinx extension for the book build (listed in ``_config.yml``): fixes to what Jupyter Book 1.x emits.

* The tables the chapters showed, written as CSV during execution (`report.save_table_csv`), are copied into the
  HTML as ``_tables/``, where each table's "CSV" link points.
* A figure pasted from a notebook (``{glue:figure}``) got its file name as alt text; it gets its caption instead,
  so that a screen reader reads what the figure shows.
* Jupyter Book 1.x and sphinx-thebe both run sphinx-thebe's set-up, so every page got its inline config script
  twice, and the second ``const THEBE_JS_URL`` raised a console error. Each page keeps one copy of every script.
* The runs browser's data, every stored run of its figures from ``data/``, is written as ``_static/stored_runs.js``
  (`run_index`).
* The errata's entries carry their dates from git (`stamp.section_dates`): the commit that wrote each heading.
* The execution cache that `book_execute` fills is read only when it was filled from this library and this
  ``data/`` (`drop_stale_execution_cache`).
* Every page ends with its edition (`stamp`): version, build date, commit and a short hash of ``data/``.
* The page's ".ipynb" download was the committed source, without outputs, and myst-nb's executed copy has its glued
  outputs (most figures and numbers) taken out. The download becomes the executed notebook with every output, the
  glued ones as plain displays where their cell made them, so that it opens in Jupyter as the page reads.
"""

from __future__ import annotations

import os
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


_EXECUTED: dict[str, Any] = {}  # source path → the executed notebook, every output kept (`keep_executed_outputs`)


def _with_glue_as_displays(notebook: Any) -> Any:
    """A copy of ``notebook`` whose glued outputs (mime types under papermill's record prefix) are plain displays."""
    import copy

    nb = copy.deepcopy(notebook)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("scrapbook")
            if record is None:
                continue
            cut = len(record.get("mime_prefix", ""))
            output["data"] = {k[cut:]: v for k, v in output.get("data", {}).items()}
            output["metadata"] = {k: v for k, v in output["metadata"].items() if k != "scrapbook"}
    return nb


def keep_executed_outputs() -> None:
    """Wrap myst-nb's glue extraction (run on the executed notebook, before it strips the glued outputs) so that a
    copy with every output is kept for the download. If myst-nb's internals differ, downloads stay as they were."""
    import sys

    try:
        from myst_nb.core.execute import base
    except ImportError:
        return
    original = base.extract_glue_data
    if getattr(original, "_keeps_outputs", False):
        return

    def extract_and_keep(notebook: Any, source_map: Any, logger: Any) -> Any:
        client = sys._getframe(1).f_locals.get("self")
        path = getattr(client, "_path", None)
        if path is not None:
            _EXECUTED[str(path)] = _with_glue_as_displays(notebook)
        return original(notebook, source_map, logger)

    extract_and_keep._keeps_outputs = True  # type: ignore[attr-defined]  # a marker on the function object (read back by getattr above)
    base.extract_glue_data = extract_and_keep


def write_executed_downloads(app: Any, exception: Exception | None) -> None:
    """Replace each executed page's ``_sources/<page>.ipynb`` (what the download button links) with its outputs."""
    import os

    import nbformat

    if exception is not None or app.builder.format != "html":
        return
    for path, notebook in _EXECUTED.items():
        rel = os.path.relpath(path, app.srcdir)
        target = os.path.join(app.outdir, "_sources", rel)
        if not rel.startswith("..") and os.path.exists(target):
            nbformat.write(notebook, target)


def write_stored_runs(app: Any, exception: Exception | None) -> None:
    """The runs browser's data (chapters/explore_runs): the stored runs of its figures, from ``data/``, as
    ``_static/stored_runs.js`` (`run_index`)."""
    import os
    from pathlib import Path

    from .run_index import write_script

    if exception is not None or app.builder.format != "html":
        return
    write_script(Path(os.path.join(app.outdir, "_static", "stored_runs.js")))


def add_edition(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Append the build's edition to the page's body, where a reader who prints or cites the page sees it."""
    from html import escape

    from .stamp import stamp

    if "body" in context:
        s = stamp()
        # The commit and the data hash are identifiers, set as code: "6082872e52" once read as e-notation in prose.
        context["body"] += (f'<p class="build-stamp">Version {escape(s["version"])} · built {escape(s["date"])} · commit '
                            f'<code>{escape(s["commit"])}</code> · data/ SHA-256 <code>{escape(s["data"])}</code></p>')


def date_errata(app: Any, doctree: Any) -> None:
    """Under each section heading of the errata page, the date and commit that wrote it, from ``git blame``."""
    from pathlib import Path

    from docutils import nodes

    from .stamp import section_dates

    if app.env.docname != "chapters/errata":
        return
    dates = section_dates(Path(app.srcdir) / "chapters" / "errata.md", Path(app.srcdir))
    for section in doctree.findall(nodes.section):
        title = next(iter(section.findall(nodes.title)), None)
        when = dates.get(title.astext().strip()) if title is not None else None
        if title is None or when is None:
            continue
        para = nodes.paragraph(classes=["erratum-date"])
        para += nodes.emphasis(text=f"Entered {when[0]} (commit {when[1]})")
        title.parent.insert(title.parent.index(title) + 1, para)


def light_by_default(app: Any, config: Any) -> None:
    """The theme's page template reads a first visitor's colour mode from the ``default_mode`` of its context (not a
    theme option of sphinx-book-theme); Jupyter Book 1.x leaves it empty, so every first visit (a fresh browser
    profile) logged "Got invalid theme mode" to the console."""
    config.html_context = {**(config.html_context or {}), "default_mode": "light"}


def drop_stale_execution_cache(app: Any, config: Any) -> None:
    """In myst-nb's "cache" mode, the execution cache is read only if `book_execute` filled it from this library and
    this ``data/`` (its stamp matches) and the claims log it wrote is still there; otherwise it is emptied, and the
    build executes every page itself. The cache keys on code cells alone, so a change to ``emergence_lib`` or
    ``data/`` would otherwise be served stale outputs."""
    import shutil
    from pathlib import Path

    from .book_execute import stamp_matches
    from .claims.judging import CLAIMS_LOG_ENV

    if getattr(config, "nb_execution_mode", None) != "cache":
        return
    cache = Path(config.nb_execution_cache_path or Path(app.outdir).parent / ".jupyter_cache")
    log = os.environ.get(CLAIMS_LOG_ENV)
    if cache.exists() and not (stamp_matches(cache) and (not log or any(Path(log).glob("*.json")))):
        shutil.rmtree(cache)


def setup(app: Any) -> dict[str, Any]:
    keep_executed_outputs()
    app.connect("config-inited", drop_stale_execution_cache)
    app.connect("config-inited", light_by_default)
    app.connect("build-finished", write_stored_runs)
    app.connect("build-finished", write_executed_downloads)
    app.connect("build-finished", copy_table_csvs)
    app.connect("doctree-resolved", caption_as_alt_text)
    app.connect("html-page-context", add_edition)
    app.connect("doctree-read", date_errata)
    # After every other handler of the event, so that scripts added per page are seen too.
    app.connect("html-page-context", drop_duplicate_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
