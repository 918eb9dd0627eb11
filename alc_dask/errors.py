"""The kinds of error alc_dask raises on purpose, so that a caller can tell input to fix from a
cluster to retry and from a bug; the CLI turns each kind into its exit code (``alc_dask.cli_exit_codes``).

Each error of a layer is one of these kinds, defined beside the code that raises it (``JobSpecError``,
raised by the job layer and the families alike, is defined here): ``JobSpecError`` (a job file),
``ReleaseError`` and ``ScenarioError`` (a release, a scenario that does not fit it), ``SettingError`` (a settings field), ``ResultsError`` and ``FolderBusy`` (an output
folder), ``PredictionsError`` (a predictions file to score) are ``InputError``s; ``EngineError`` is
a ``ClusterError``. Those that were ``ValueError``s still are, so code catching ``ValueError`` still
catches them. Any other exception is a bug.

The two warnings the CLI shows in one line, ``ReleaseWarning`` (re-exported by ``alc_dask.data``) and
``LeaseWarning`` (by ``alc_dask.results.lease``), are defined here too: the CLI filters them without
importing the layers (and pandas) that raise them.
"""


class AlcDaskError(Exception):
    """An error alc_dask raises on purpose; its kind (a subclass below) says what to do about it.

    Examples
    --------
    >>> from alc_dask.errors import AlcDaskError, InputError
    >>> from alc_dask.measure import Tolerance
    >>> try:
    ...     Tolerance(epsilon=-1)
    ... except AlcDaskError as error:
    ...     print(isinstance(error, InputError), error)
    True epsilon must be a number greater than 0; got -1
    """


class InputError(AlcDaskError):
    """What the user gave cannot be used as given (a job file, a release, an option, a file or folder);
    the message names it. Fixing it is the remedy: retrying will not help.

    Examples
    --------
    >>> from alc_dask import Release
    >>> from alc_dask.errors import InputError
    >>> try:
    ...     Release.load("no-such-file.parquet", ["release.parquet"])
    ... except InputError as error:
    ...     print(type(error).__name__, str(error).split(" (")[0])
    ReleaseError no-such-file.parquet: cannot read parquet file
    """


class OptionError(InputError, ValueError):
    """A command's option (or the Python API's argument of the same name) holds a value it cannot take.

    Examples
    --------
    >>> from alc_dask import run_job
    >>> run_job("job.yaml", dashboard="nope")
    Traceback (most recent call last):
    ...
    alc_dask.errors.OptionError: dashboard address 'nope': expected HOST:PORT or :PORT (e.g. 127.0.0.1:8790)
    """


class PathError(InputError, OSError):
    """A file or folder the user named cannot be read or written (missing, unreadable, a full disk,
    a read-only folder, an unreachable bucket); the message names the path.

    Examples
    --------
    Code catching ``OSError`` still catches it:

    >>> from alc_dask.errors import PathError
    >>> issubclass(PathError, OSError)
    True
    """


class MissingPathError(PathError, FileNotFoundError):
    """A ``PathError`` for a file that is not there, still a ``FileNotFoundError`` to code expecting one.

    Examples
    --------
    >>> from alc_dask.errors import MissingPathError
    >>> issubclass(MissingPathError, FileNotFoundError)
    True
    """


class ClusterError(AlcDaskError):
    """The Dask cluster cannot be reached or used, or was lost: retrying later may help.

    Examples
    --------
    >>> from alc_dask.engine import EngineError
    >>> from alc_dask.errors import ClusterError
    >>> issubclass(EngineError, ClusterError)
    True
    """


class InternalError(AlcDaskError):
    """Code that breaks a contract of alc_dask (a family or attack of a plugin, say): a bug to report.

    Examples
    --------
    Not an input error: the CLI exits 1 and suggests ``--traceback``.

    >>> from alc_dask.errors import InputError, InternalError
    >>> issubclass(InternalError, InputError)
    False
    """


class JobSpecError(InputError, ValueError):
    """A job file cannot be used as written: the message names the file, the field and the value.
    Raised by the job layer and by the families that plan a job's scenarios.

    Examples
    --------
    >>> from alc_dask.errors import JobSpecError
    >>> from alc_dask.jobs import validate_job
    >>> job = {"name": "x", "release": {"original": "a.csv", "anonymized": ["b.csv"]}, "scenarios": [{"secret": "a", "known": ["b"], "baseline": "nope"}]}
    >>> try:
    ...     validate_job(job)
    ... except JobSpecError as error:
    ...     print(error)
    job: invalid job spec:
      scenarios[0].baseline: Input should be 'ml', 'prior' or 'control'; got 'nope'
    """


class ReleaseWarning(UserWarning):
    """A release can be measured, but a measure may mislead: the message names the column and why.

    Examples
    --------
    A value a million times beyond the others makes every other distance on its column about 0:

    >>> import warnings
    >>> import pandas as pd
    >>> from alc_dask import Release
    >>> from alc_dask.errors import ReleaseWarning
    >>> table = pd.DataFrame({"age": [20.0 + i % 50 for i in range(200)], "sex": ["f", "m"] * 100})
    >>> stretched = table.assign(age=[1e9, *table["age"][1:]])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     release = Release.load(stretched, [table])
    >>> [w.category is ReleaseWarning for w in caught], str(caught[0].message).split(" stretch")[0]
    ([True], "column 'age': a few extreme values (e.g. 1e+09 in original)")
    """


class LeaseWarning(UserWarning):
    """Waiting for a folder, taking one over, or a heartbeat that could not be written.

    Examples
    --------
    ``alc_dask.results.lease``, whose output-folder leases give it, exports it too:

    >>> from alc_dask.errors import LeaseWarning
    >>> from alc_dask.results.lease import LeaseWarning as given
    >>> given is LeaseWarning, issubclass(LeaseWarning, UserWarning)
    (True, True)
    """
