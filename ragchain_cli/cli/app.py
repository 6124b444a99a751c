"""`ragchain`: the Typer app. Commands live one per file; errors become messages and exit codes here."""

from __future__ import annotations

import gc
import sys
import traceback
from typing import Annotated

import typer

from ..errors import RagchainError
from ..offline import cli_process
from . import ask, evaluate, ingest, models, search, status
from .output import EXIT_CODES, error, exit_code, library_warnings, shown

app = typer.Typer(
    name="ragchain",
    help="Offline retrieval-augmented generation over local documents.\n\nExit codes: "
    + "; ".join(f"{code} {text}" for code, text in EXIT_CODES.items()),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("ragchain-cli")
        except PackageNotFoundError:  # run from a checkout that was never installed
            number = "unknown (not installed)"
        typer.echo(f"ragchain {number}")
        raise typer.Exit()


@app.callback()
def _options(version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                                   help="Print the version and exit")] = False) -> None:
    pass


app.command("ingest")(ingest.ingest_command)
app.command("search")(search.search_command)
app.command("status")(status.status_command)
app.command("check")(status.check_command)
app.command("eval")(evaluate.eval_command)
app.command("ask")(ask.ask_command)
app.command("models")(models.models_command)


def _click_exception() -> type[Exception]:
    """The ClickException class of the click that typer runs on (typer >= 0.29 vendors its own)."""
    try:
        from typer._click.exceptions import ClickException
    except ImportError:  # older typer: the click package
        from click.exceptions import ClickException
    return ClickException


CLICK_ERROR = _click_exception()


def run(argv: list[str] | None = None) -> int:
    """Run one command and return its exit code; errors are printed here, on stderr, once."""
    try:
        with library_warnings():
            code = app(args=argv, standalone_mode=False)
    except RagchainError as exc:
        error(exc.message, exc.hint)
        return exit_code(exc)
    except typer.Exit as exc:
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        error("interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except CLICK_ERROR as exc:  # usage errors: a bad option, a missing argument, ...
        exc.show()
        return exc.exit_code
    except Exception as exc:  # a bug: the traceback says where, the hint what to do with it
        return _unexpected(exc)
    finally:
        gc.unfreeze()  # commands freeze what they loaded (common.settle); in-process callers get GC back
    return code if isinstance(code, int) else 0


def _unexpected(exc: Exception) -> int:
    """An exception no command expected: 130 when it came out of a Ctrl-C, else its traceback, an
    error line asking for a report, and 1."""
    if _after_an_interrupt(exc):
        error("interrupted")
        return 130
    traceback.print_exc()
    error(f"unexpected {type(exc).__name__}: {shown(str(exc))}",
          "this is a bug in ragchain; the traceback above shows where - please report it with the command")
    return 1


def _after_an_interrupt(exc: BaseException) -> bool:
    """An error raised while a Ctrl-C was being handled. A library that catches the KeyboardInterrupt
    during an import can raise an import error in its place (seen once from transformers' lazy
    modules when Ctrl-C came while sentence-transformers loaded)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def main() -> None:
    """The `ragchain` program: this process is the CLI's own, so it sets the process switches
    (offline, quiet, one BLAS thread; offline.cli_process) before any command loads a library."""
    cli_process()
    code = run()
    if code == 130:
        _forget_the_interrupt()
    sys.exit(code)


def _forget_the_interrupt() -> None:
    """Let an interrupted command exit 130, as output.py's table says. A Ctrl-C that lands inside an
    exec() of a string (dataclasses and namedtuple build methods so, while a library is imported)
    leaves CPython's "unhandled KeyboardInterrupt" mark set although run() handled it, and under
    `python -m` the interpreter then kills itself with SIGINT at exit whatever code sys.exit gives
    (Modules/main.c, Py_RunMain). Each exec() of a string clears the mark when it starts."""
    exec("pass")  # noqa: S102 - a constant string: no input reaches it
