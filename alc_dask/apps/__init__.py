"""Applications on top of the core: the demo, the paper's reproduction, the stress test of the
baselines and the scoring of predictions made elsewhere.

Each application's work is in its module (``demo``, ``reproduction``, ``stress``, ``score``) and its
``alc-dask`` command in the module beside it (``*_command``), light to import so that ``alc-dask
--help`` stays quick. ``APP_COMMANDS`` is the one list the core CLI (``alc_dask.cli``) adds.
"""

from alc_dask.apps import check_command, demo_command, paper_command, score_command, stress_command, worst_columns_command

APP_COMMANDS = (
    check_command.check,
    worst_columns_command.worst_columns,
    score_command.score,
    stress_command.stress,
    demo_command.demo,
    paper_command.paper,
)
"""Named through their modules: a command bound here as ``demo`` would hide the module ``alc_dask.apps.demo``."""
