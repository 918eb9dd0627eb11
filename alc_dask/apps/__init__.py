"""Applications on top of the core: the demo, the paper's reproduction, the stress test of the
baselines and the scoring of predictions made elsewhere.

Each application's work is in its module (``demo``, ``reproduction``, ``stress``, ``score``) and its
``alc-dask`` command in the module beside it (``*_command``), light to import so that ``alc-dask
--help`` stays quick. ``APP_COMMANDS`` is the one list the core CLI (``alc_dask.cli``) adds: by
name, so that a command's module is imported only when that command is called or listed.
"""

APP_COMMANDS = {
    "check": "alc_dask.apps.check_command:check",
    "worst-columns": "alc_dask.apps.worst_columns_command:worst_columns",
    "score": "alc_dask.apps.score_command:score",
    "stress": "alc_dask.apps.stress_command:stress",
    "demo": "alc_dask.apps.demo_command:demo",
    "paper": "alc_dask.apps.paper_command:paper",
}
"""Each application command's name and its object (``module:attribute``)."""
