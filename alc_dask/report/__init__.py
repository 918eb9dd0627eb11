"""Reading results as people do: summaries, plots, reports and audits against the previous run."""

from alc_dask.report.audit import AuditDiff, audit_markdown, compare
from alc_dask.report.render import as_html, as_markdown, as_text, write_report
from alc_dask.report.summary import Summary, summarize

__all__ = ["AuditDiff", "Summary", "as_html", "as_markdown", "as_text", "audit_markdown", "compare", "summarize", "write_report"]
