"""The documentation site's build hooks (``hooks:`` in mkdocs.yml), so that no plugin is needed.

- The reference parts generated from the code replace their markers (``alc_dask.reference``), and
  the JSON Schemas of the job file and of ``verdict.json`` are published beside them.
- The results reference's column lists are rendered from the schemas; a page whose committed lists
  differ is a warning, so ``mkdocs build --strict`` fails until ``make columns`` updates it.
- The tables the benchmarks write (``benchmarks/**/RESULTS*.md``, their figures) become pages.
- ``llms.txt`` (each page's title, address and first sentence, by section) and ``llms-full.txt``
  (every page's Markdown) are written at the site's root.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page

from alc_dask.reference import expand, schema_files
from alc_dask.results.columns import BLOCK, COMMAND, rendered

log = get_plugin_logger("alc_dask")
ROOT = Path(__file__).resolve().parents[1]
BENCHMARK_FILES = ("benchmarks/RESULTS*.md", "benchmarks/*/RESULTS*.md", "benchmarks/*/*.png")

_pages: dict[str, tuple[str, str]] = {}  # page URL -> (first sentence, Markdown), for llms.txt
_navigation: list[Navigation] = []


def on_files(files: Files, config) -> Files:
    for path, text in schema_files().items():
        files.append(File.generated(config, path, content=text))
    for pattern in BENCHMARK_FILES:
        for source in sorted(ROOT.glob(pattern)):
            files.append(File.generated(config, source.relative_to(ROOT).as_posix(), abs_src_path=str(source)))
    return files


def on_nav(nav: Navigation, config, files: Files) -> Navigation:
    _navigation[:] = [nav]
    _pages.clear()
    return nav


def on_page_markdown(markdown: str, page: Page, config, files: Files) -> str:
    where = page.file.src_uri
    if BLOCK.search(markdown):
        current = rendered(markdown)
        if current != markdown:
            log.warning(f"{where}: its column lists differ from the results' schemas: run {COMMAND}")
        markdown = current
    markdown = expand(markdown, where)
    _pages[page.url] = (_first_sentence(markdown), markdown)
    return markdown


def on_post_build(config) -> None:
    site = Path(config.site_dir)
    lines = [f"# {config.site_name}", "", f"> {config.site_description}", ""]
    full = []
    for item in _navigation[0].items if _navigation else []:
        lines += _llms_section(item)
    for url, (_, markdown) in _pages.items():
        full += [f"<!-- page: /{url} -->", markdown.strip(), ""]
    (site / "llms.txt").write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    (site / "llms-full.txt").write_text("\n".join(full), encoding="utf-8")


def _llms_section(item) -> list[str]:
    """A nav section as an llms.txt section: a heading, then a line per page, sub-sections flattened."""
    if isinstance(item, Page):
        return [f"## {item.title}", "", _llms_line(item), ""]
    if isinstance(item, Section):
        return [f"## {item.title}", "", *(_llms_line(page) for page in _flat_pages(item)), ""]
    return []


def _flat_pages(section: Section) -> list[Page]:
    found = []
    for child in section.children:
        found += _flat_pages(child) if isinstance(child, Section) else [child] if isinstance(child, Page) else []
    return found


def _llms_line(page: Page) -> str:
    sentence = _pages.get(page.url, ("", ""))[0]
    return f"- [{page.title}](/{page.url}){': ' + sentence if sentence else ''}"


def _first_sentence(markdown: str) -> str:
    """The page's first sentence of prose (up to 300 characters), code and comments left out, links reduced to their text."""
    prose = re.sub(r"^```.*?^```", "", markdown, flags=re.MULTILINE | re.DOTALL)
    prose = re.sub(r"<!--.*?-->", "", prose, flags=re.DOTALL)
    for paragraph in re.split(r"\n\s*\n", prose):
        text = paragraph.strip()
        if not text or text[0] in "#<|-!>[:*" and not text.startswith("**") or text.startswith("??? ") or text.startswith("    "):
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", " ".join(text.split()))
        sentence = re.split(r"(?<=\.)\s", text, maxsplit=1)[0]
        return sentence if len(sentence) <= 300 else sentence[:299].rsplit(" ", 1)[0] + "…"
    return ""
