"""Reading a job file: parse YAML or JSON, validate, resolve paths against the job file's folder.

Every error is a ``JobSpecError`` naming the file, the field, the value found and what was expected.
The file is read as plain data by ``files``.
"""

from pathlib import Path

from pydantic import ValidationError

from alc_dask.data.fingerprint import dataset_files
from alc_dask.data.parts import list_parts
from alc_dask.errors import JobSpecError
from alc_dask.families import get_family
from alc_dask.families.base import INVALID_FIELD
from alc_dask.families.planning import Generator
from alc_dask.jobs.files import parse_file, read_kinds
from alc_dask.jobs.spec import HIERARCHIES, FamilyScenario, JobSpec, generators, job_model
from alc_dask.shown import shown


def load_job(path: str | Path) -> JobSpec:
    """The validated spec in ``path`` (.yaml, .yml or .json), its paths made absolute."""
    path = Path(path)
    if path.is_dir():
        raise JobSpecError(f"{path}: is a directory, not a job file")
    if not path.is_file():
        raise JobSpecError(f"{path}: job file not found")
    data = parse_file(path)
    return resolve_paths(validate_job(data, source=str(path)), path.resolve().parent)


def validate_job(data, source: str = "job") -> JobSpec:
    if not isinstance(data, dict):
        raise JobSpecError(f"{source}: expected a mapping of job fields at the top level; got {type(data).__name__}")
    try:
        spec = job_model().model_validate(data)
    except ValidationError as error:
        problems = [_describe(e) for e in error.errors()]
        raise JobSpecError(f"{source}: invalid job spec:\n" + "\n".join([*problems, *_entries_problems(data.get("scenarios"))])) from None
    problems = _entries_problems(spec.scenarios)
    if problems:
        raise JobSpecError(f"{source}: invalid job spec:\n" + "\n".join(problems))
    return spec


def _entries_problems(entries) -> list[str]:
    """What the families named by the evaluation entries (not generators) find wrong with them."""
    if not isinstance(entries, list):
        return []
    problems = []
    for i, entry in enumerate(entries):
        if isinstance(entry, dict) and "generate" not in entry:
            try:
                entry = FamilyScenario.model_validate(entry)
            except ValidationError:
                continue  # said already
        if isinstance(entry, FamilyScenario):
            problems += _family_problems(entry, i)
    return problems


def _family_problems(entry: FamilyScenario, index: int) -> list[str]:
    """What the family named by ``scenarios[index]`` finds wrong with the entry."""
    try:
        family = get_family(entry.family)
    except ValueError as error:
        return [f"  scenarios[{index}].family: {error}"]
    try:
        family.entry_model().model_validate(entry.params)
    except ValidationError as error:
        return [_describe({**e, "loc": ("scenarios", index, *e["loc"])}) for e in error.errors()]
    return []


def resolve_paths(spec: JobSpec, base: Path) -> JobSpec:
    """A copy of ``spec`` whose relative file paths are taken from ``base`` (URLs are left alone)."""
    grouped = spec.release.grouped
    if grouped is not None:
        grouped = grouped.model_copy(
            update={
                "table": _absolute(grouped.table, base),
                "sensitive_table": _absolute(grouped.sensitive_table, base) if grouped.sensitive_table else None,
                "hierarchies": {c: _absolute(p, base) for c, p in grouped.hierarchies.items()},
            }
        )
    release = spec.release.model_copy(
        update={
            "original": _absolute(spec.release.original, base),
            "anonymized": [_absolute(p, base) for p in spec.release.anonymized],
            "control": _absolute(spec.release.control, base) if spec.release.control else None,
            "grouped": grouped,
            "columns": _absolute(spec.release.columns, base) if isinstance(spec.release.columns, str) else spec.release.columns,
        }
    )
    scenarios = [s.model_copy(update={f: _absolute(getattr(s, f), base) for f in s.files}) if isinstance(s, Generator) else s for s in spec.scenarios]
    return spec.model_copy(update={"release": release, "scenarios": scenarios, "output": _absolute(spec.output, base)})


def check_files(spec: JobSpec, source: str = "job") -> None:
    """Fail early, naming the field, when an input is missing: a release table (file, directory of
    parts, glob or URL: ``ReleaseError``, also when its URL cannot be reached or its parts disagree
    on columns or types), a generalization hierarchy's file or a jobs file."""
    if isinstance(spec.release.columns, str):
        read_kinds(spec.release.columns, f"{source}: release.columns")
    for field, value in spec.release.files():
        if field.startswith(HIERARCHIES):
            dataset_files(value, f"{source}: {field}")  # found and reachable; read by its own rules
        else:
            list_parts(value, f"{source}: {field}")
    for i, scenario in enumerate(spec.scenarios):
        for field in scenario.files if isinstance(scenario, Generator) else ():
            _check_file(getattr(scenario, field), f"{source}: scenarios[{i}].{field}")


def _check_file(value: str, name: str) -> None:
    if "://" not in value and Path(value).is_dir():
        raise JobSpecError(f"{name}: {value!r} is a directory, not a file")
    if "://" not in value and not Path(value).is_file():
        raise JobSpecError(f"{name}: file {value!r} not found")


def _describe(error: dict) -> str:
    where, previous = "", None
    for part in error["loc"]:
        if isinstance(part, int):
            where += f"[{part}]"
        elif not (isinstance(previous, int) and part in (*generators(), "family")):  # the entry's kind adds nothing
            where += f".{part}" if where else str(part)
        previous = part
    if error["type"] == INVALID_FIELD:  # a settings check: the field below the model, and its value
        context = error["ctx"]
        where = f"{where}.{context['field']}" if where else context["field"]
        return f"  {where}: must be {context['expected']}; got {shown(context['value'])}"
    got = "" if error["type"] == "missing" else f"; got {shown(error['input'])}"
    return f"  {where or '(top level)'}: {error['msg']}{got}"


def _absolute(value: str, base: Path) -> str:
    if "://" in value or Path(value).is_absolute():
        return value
    return str((base / value).resolve())
