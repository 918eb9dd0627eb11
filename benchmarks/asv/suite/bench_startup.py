"""Start-up: importing the command line, and ``alc-dask --help``, each in a fresh interpreter (the
issue's goal: ``--help`` under 0.5 s)."""


def timeraw_import_cli():
    return "import alc_dask.cli"


def timeraw_help():
    return """
from alc_dask.cli import main
try:
    main(["--help"])
except SystemExit:
    pass
"""


def timeraw_import_package():
    return "import alc_dask"
