"""The kinds of error alc_dask raises on purpose, so that a caller can tell input to fix from a
cluster to retry and from a bug; the CLI turns each kind into its exit code (``alc_dask.cli_exit_codes``).

Each error of a layer is one of these kinds, defined beside the code that raises it (``JobSpecError``,
raised by the job layer and the families alike, is defined here): ``JobSpecError`` (a job file),
``ReleaseError`` and ``ScenarioError`` (a release, a scenario that does not fit it), ``SettingError`` (a settings field), ``ResultsError`` and ``FolderBusy`` (an output
folder), ``PredictionsError`` (a predictions file to score) are ``InputError``s; ``EngineError`` is
a ``ClusterError``. Those that were ``ValueError``s still are, so code catching ``ValueError`` still
catches them. Any other exception is a bug.
"""


class AlcDaskError(Exception):
    """An error alc_dask raises on purpose; its kind (a subclass below) says what to do about it."""


class InputError(AlcDaskError):
    """What the user gave cannot be used as given (a job file, a release, an option, a file or folder);
    the message names it. Fixing it is the remedy: retrying will not help."""


class OptionError(InputError, ValueError):
    """A command's option (or the Python API's argument of the same name) holds a value it cannot take."""


class PathError(InputError, OSError):
    """A file or folder the user named cannot be read or written (missing, unreadable, a full disk,
    a read-only folder, an unreachable bucket); the message names the path."""


class MissingPathError(PathError, FileNotFoundError):
    """A ``PathError`` for a file that is not there, still a ``FileNotFoundError`` to code expecting one."""


class ClusterError(AlcDaskError):
    """The Dask cluster cannot be reached or used, or was lost: retrying later may help."""


class InternalError(AlcDaskError):
    """Code that breaks a contract of alc_dask (a family or attack of a plugin, say): a bug to report."""


class JobSpecError(InputError, ValueError):
    """A job file cannot be used as written: the message names the file, the field and the value.
    Raised by the job layer and by the families that plan a job's scenarios."""
