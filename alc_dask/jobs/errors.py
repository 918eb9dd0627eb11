"""The error of a job that cannot be used as written, shared by loading and expansion."""


class JobSpecError(ValueError):
    """A job file cannot be used as written: the message names the file, the field and the value."""
