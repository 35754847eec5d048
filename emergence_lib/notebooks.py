"""Chapters with parameters, through papermill.

    python -m emergence_lib prepare --scale smoke --out _build/smoke chapters/*.ipynb
    python -m emergence_lib execute chapters/01_toy_model.ipynb out.ipynb -p scale paper   (see `cli`)

``prepare`` writes each chapter with its parameters injected (papermill's
``injected-parameters`` cell, right after the ``parameters`` cell) but does not
run it: the test suite then runs those copies under nbval.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

import nbformat
import papermill

from .configs import ConfigError, check_scale


def _parameters_cells(path: str | Path) -> list:
    try:
        nb = nbformat.read(str(path), as_version=4)
    except Exception as exc:  # not JSON, not a notebook, unreadable: one line naming it
        raise ConfigError(f"{path} is not a notebook that can be read ({type(exc).__name__}); name a chapter .ipynb") from None
    return [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]


def has_parameters_cell(path: str | Path) -> bool:
    return bool(_parameters_cells(path))


def accepted_parameters(path: str | Path) -> list[str]:
    """The names the chapter's ``parameters`` cell assigns (read with ``ast``: papermill's own parser
    skips a line whose comment holds a quote)."""
    return [name for cell in _parameters_cells(path) for name in _assigned_names(cell.source)]


def default_parameters(path: str | Path) -> dict[str, Any]:
    """The values the chapter's ``parameters`` cell assigns (literals only; read with ``ast``, never executed)."""
    out: dict[str, Any] = {}
    for cell in _parameters_cells(path):
        for node in ast.parse(cell.source).body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                try:
                    out[node.targets[0].id] = ast.literal_eval(node.value)
                except ValueError:
                    continue
    return out


def _assigned_names(source: str) -> list[str]:
    names: list[str] = []
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def one_line_config_errors() -> None:
    """In a chapter's kernel (under plain papermill or Jupyter): show a ConfigError, a bad parameter, as one line
    naming what is allowed, not as a 60-line traceback. The cell still fails (papermill stops there). Outside IPython
    this does nothing."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - chapters run in IPython
        return
    shell = get_ipython()
    if shell is None:
        return

    def one_line(self: Any, etype: type, value: BaseException, tb: Any, tb_offset: Any = None) -> list[str]:
        # IPython ignores what a custom handler returns when running a cell: show it (the kernel publishes it as
        # the cell's error, which papermill reports).
        stb = [f"{etype.__name__}: {value}"]
        self._showtraceback(etype, value, stb)
        return stb

    shell.set_custom_exc((ConfigError,), one_line)


def refuse_unknown_parameters() -> None:
    """Called by every chapter right after its parameters: stop on a parameter the chapter does not define.

    Plain ``papermill -p NAME VALUE`` only warns about an unknown NAME and runs the chapter with its
    defaults. Papermill injects its parameters as a cell that starts with the line ``# Parameters``,
    right after the chapter's ``parameters`` cell; both are in IPython's input history, so the injected
    names are checked against the ones the chapter's cell assigns. Outside papermill this does nothing.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - chapters run in IPython
        return
    shell = get_ipython()
    one_line_config_errors()
    history = list(shell.user_ns.get("In", [])) if shell is not None else []
    for i, source in enumerate(history[1:], start=1):
        if source.splitlines()[:1] == ["# Parameters"]:  # papermill's injected cell
            accepted = _assigned_names(history[i - 1])
            unknown = [name for name in _assigned_names(source) if name not in accepted]
            if unknown:
                raise ConfigError(f"this chapter has no parameter {', '.join(map(repr, unknown))}; it accepts: {', '.join(accepted)}")


def _check(chapter: Path, parameters: dict[str, Any]) -> None:
    """Refuse, before any compute, a missing chapter and parameters its ``parameters`` cell does not define.

    (papermill itself only warns about an unknown parameter and runs the chapter with its default.)
    """
    if not chapter.is_file():
        raise ConfigError(f"chapter {chapter} does not exist")
    if not has_parameters_cell(chapter):
        raise ConfigError(f"chapter {chapter} has no cell tagged 'parameters'")
    accepted = accepted_parameters(chapter)
    unknown = [name for name in parameters if name not in accepted]
    if unknown:
        raise ConfigError(f"chapter {chapter.name} has no parameter {', '.join(map(repr, unknown))}; it accepts: {', '.join(accepted)}")
    if "scale" in parameters:
        check_scale(parameters["scale"])


CHAPTERS_DIR = Path(__file__).resolve().parent.parent / "chapters"


def _check_out(chapter: Path, out: Path) -> None:
    """Refuse, before any compute, an output that would replace the chapter itself, any committed chapter (inside
    any folder named ``chapters`` that holds notebooks: this checkout's, another's, or the user's own when the
    library is an installed copy) or any file git tracks in whatever checkout, that is not a notebook file, that is
    a hard link (writing it rewrites its other names), or that cannot be written (an immutable file, a name too
    long)."""
    try:
        _check_out_path(chapter, out)
    except OSError as exc:  # a name too long anywhere in the path, a folder that cannot be read
        raise ConfigError(f"cannot write the output {out}: {exc.strerror or exc}") from None


def _check_out_path(chapter: Path, out: Path) -> None:
    target = out.resolve()
    if any(len(part.encode()) > 255 for part in target.parts):
        raise OSError(36, "File name too long")
    if target == chapter.resolve():
        raise ConfigError(f"the output {out} is the chapter itself; name another file")
    if target.suffix != ".ipynb":
        raise ConfigError(f"the output {out} is not a notebook file; name a .ipynb file")
    if target.is_file():
        if target.stat().st_nlink > 1:  # writing it would rewrite every other name of the same file
            raise ConfigError(f"the output {out} is a hard link shared with another file; write it elsewhere")
        if _tracked_by_git(target):
            raise ConfigError(f"the output {out} is a file git tracks; write it elsewhere")
    for folder in target.parents:
        if folder.name == "chapters" and any(folder.glob("*.ipynb")):
            raise ConfigError(f"the output {out} is inside {folder}, beside committed chapters; write it elsewhere")
    try:
        if len(target.name.encode()) > os.pathconf(target.parent if target.parent.exists() else "/", "PC_NAME_MAX"):
            raise OSError(36, "File name too long")
        if target.is_dir():
            raise ConfigError(f"the output {out} is a folder; name a notebook file")
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            with open(target, "a"):  # an immutable or read-only file refuses this, and nothing is truncated
                pass
        probe = target.parent / f".{target.name[:200]}.probe"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ConfigError(f"cannot write the output {out}: {exc.strerror or exc}") from None


def _tracked_by_git(path: Path) -> bool:
    """Whether ``path`` is a file committed to the git work tree it sits in (any checkout; False without git)."""
    import subprocess

    # git's own environment (GIT_DIR, GIT_WORK_TREE, ...) would point it at another repository; a checkout owned by
    # another user is read all the same (safe.directory), and a ':' or '[' in the name is a name, not a pattern.
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    inside = any((folder / ".git").exists() for folder in path.parents)
    try:
        done = subprocess.run(["git", "-c", "safe.directory=*", "--literal-pathspecs", "-C", str(path.parent),
                               "ls-files", "--error-unmatch", "--", path.name], capture_output=True, timeout=30, env=env)
    except (OSError, subprocess.SubprocessError):
        return inside  # no git to ask: a file inside a checkout is taken as tracked
    if done.returncode in (0, 1):
        return done.returncode == 0
    return inside  # git failed (not "untracked"): inside a checkout, refuse rather than guess


def prepare(chapter: str | Path, out: str | Path, **parameters: Any) -> Path:
    """Write ``chapter`` with ``parameters`` injected, without executing it."""
    chapter, out = Path(chapter), Path(out)
    _check(chapter, parameters)
    _check_out(chapter, out)
    papermill.execute_notebook(str(chapter), str(out), parameters=parameters, prepare_only=True, progress_bar=False)
    return out


def execute(chapter: str | Path, out: str | Path, quiet: bool = False, **parameters: Any) -> Path:
    """Run ``chapter`` with ``parameters`` (e.g. scale="paper") into the notebook ``out``; ``quiet``: no progress bar
    (for a caller that is itself a page: the landing page's paper-scale column).

    The kernel's working directory is the chapter's folder, as in the book build.
    """
    chapter, out = Path(chapter), Path(out)
    _check(chapter, parameters)
    _check_out(chapter, out)
    papermill.execute_notebook(
        str(chapter), str(out), parameters=parameters, cwd=str(chapter.resolve().parent), kernel_name="python3",
        progress_bar=not quiet,
    )
    return out


def parse_value(text: str) -> Any:
    """A command-line parameter value: a Python literal if it parses as one, else the string."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
