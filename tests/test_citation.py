"""CITATION.cff: a Citation File Format 1.2.0 file that says what the package is, at its version and
licence, and cites only papers the code implements (each is cited in alc_dask's own source)."""

import re
import tomllib
from pathlib import Path

import pytest
import yaml

import alc_dask

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_the_required_keys_of_cff_1_2_0(citation):
    assert citation["cff-version"] == "1.2.0"
    assert isinstance(citation["message"], str) and citation["message"].strip()
    assert isinstance(citation["title"], str) and citation["title"].strip()
    assert citation["authors"] and all(isinstance(author, dict) and ({"name", "family-names"} & author.keys()) for author in citation["authors"])


def test_version_and_licence_are_the_package_s(citation):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert str(citation["version"]) == alc_dask.__version__ == project["version"]
    assert citation["license"] == project["license"]


def test_every_reference_is_complete_and_cited_in_the_code(citation):
    source = " ".join(path.read_text(encoding="utf-8") for path in (ROOT / "alc_dask").rglob("*.py"))
    source = re.sub(r"\s+", " ", source)
    for reference in citation["references"]:
        assert {"type", "title", "authors", "year"} <= reference.keys(), reference.get("title")
        first_author = reference["authors"][0]["family-names"]
        # "Francis & Wagner 2025", "Giomi et al. 2023", "Clopper & Pearson 1934": the first author, then the year
        assert re.search(rf"{re.escape(first_author)}\b[^()]{{0,60}}?\b{reference['year']}\b", source), (
            f"{first_author} {reference['year']} is cited nowhere in alc_dask"
        )
