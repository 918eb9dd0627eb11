"""The error of a job that cannot be used as written, shared by loading and expansion."""

from alc_dask.errors import InputError


class JobSpecError(InputError, ValueError):
    """A job file cannot be used as written: the message names the file, the field and the value."""
