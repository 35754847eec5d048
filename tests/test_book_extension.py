"""The book's Sphinx extension keeps one copy of each script on a page (JB 1.x added sphinx-thebe's config twice)."""

from sphinx.builders.html._assets import _JavaScript

from emergence_lib.book_extension import drop_duplicate_scripts


def test_an_inline_script_added_twice_is_kept_once_whoever_added_it():
    # What Jupyter Book 1.x produced: the same inline body with filename None and with filename "".
    first, again = _JavaScript(None, body="const THEBE_JS_URL = 1"), _JavaScript("", body="const THEBE_JS_URL = 1")
    other, file_js = _JavaScript(None, body="var x = 2"), _JavaScript("_static/a.js")
    scripts = [first, file_js, again, other, _JavaScript("_static/a.js")]
    context = {"script_files": scripts}
    drop_duplicate_scripts(None, "page", "page.html", context, None)
    assert context["script_files"] is scripts, "edited in place: the theme's templates may hold the same list"
    assert scripts == [first, file_js, other]


def test_a_pasted_figure_gets_its_caption_as_alt_text():
    from docutils import nodes
    from docutils.utils import new_document
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser

    from emergence_lib.book_extension import caption_as_alt_text

    doc = new_document("page", get_default_settings(Parser))
    figure = nodes.figure()
    container = nodes.container()
    image = nodes.image(uri="../_images/ab12.png", alt="../_images/ab12.png")
    container += image
    figure += container
    figure += nodes.caption(text="Paper's Figure 1. Loss against   time.")
    kept = nodes.image(uri="x.png", alt="a written description")
    doc += figure
    doc += kept
    caption_as_alt_text(None, doc, "page")
    assert image["alt"] == "Paper's Figure 1. Loss against time."
    assert kept["alt"] == "a written description", "an image that has alt text keeps it"


def test_a_table_is_written_as_csv_and_linked_only_when_the_build_asks(tmp_path, monkeypatch):
    import pandas as pd

    from emergence_lib import report

    df = pd.DataFrame({"d": [16, 32], "plateau": [345.25, 698.5]})
    monkeypatch.delenv(report.TABLES_DIR_ENV, raising=False)
    assert report.save_table_csv(df, "Figure 3: a table") is None
    monkeypatch.setenv(report.TABLES_DIR_ENV, str(tmp_path))
    link = report.save_table_csv(df, "Figure 3: a table")
    assert link.startswith("../_tables/figure-3-a-table-") and link.endswith(".csv")
    back = pd.read_csv(tmp_path / link.rsplit("/", 1)[1])
    assert back.equals(df), "the CSV holds the raw values, not the rounded cells"
    assert report.table_slug("Figure 3: a table") != report.table_slug("Figure 3: a table (seed means)")


def test_the_download_keeps_glued_outputs_as_plain_displays():
    """myst-nb takes glued outputs out of the executed notebook; the download copy keeps them, renderable."""
    import nbformat

    from emergence_lib.book_extension import _with_glue_as_displays

    nb = nbformat.v4.new_notebook()
    glued = nbformat.v4.new_output("display_data", data={"application/papermill.record/image/png": "iVBOR",
                                                          "application/papermill.record/text/plain": "<Figure>"},
                                   metadata={"scrapbook": {"name": "fig1", "mime_prefix": "application/papermill.record/"}})
    shown = nbformat.v4.new_output("display_data", data={"text/html": "<table></table>"})
    nb.cells = [nbformat.v4.new_code_cell("panel()", outputs=[glued, shown])]
    out = _with_glue_as_displays(nb)
    assert out.cells[0].outputs[0]["data"] == {"image/png": "iVBOR", "text/plain": "<Figure>"}
    assert "scrapbook" not in out.cells[0].outputs[0]["metadata"] and out.cells[0].outputs[1] == shown
    assert "application/papermill.record/image/png" in nb.cells[0].outputs[0]["data"], "the page's notebook is untouched"
    nbformat.validate(out)
