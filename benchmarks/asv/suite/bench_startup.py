"""Start-up: importing the package, importing the command line, and ``alc-dask --help``, each in a
fresh interpreter (the goal: ``--help`` under 0.5 s)."""


def timeraw_import_package():
    return "import alc_dask"


def timeraw_import_cli():
    return "import alc_dask.cli"


def timeraw_help():
    # asv reads the time from the interpreter's standard output: the help goes elsewhere
    return """
import contextlib, io
from alc_dask.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(["--help"], prog_name="alc-dask")
    except SystemExit:
        pass
"""
