"""The report's CSS, inline in every HTML report (nothing is fetched: a report opens from an e-mail).

Wide tables wrap rather than scroll: cells break between words and after underscores, anywhere in a
word still long (an id, say: ``overflow-wrap: anywhere`` lets the automatic table layout shrink such
a column), numbers never; headers stand upright in tables of many columns (their words would
otherwise set the columns' widths); fonts shrink on narrow screens. Printed, each part after the
verdict and its evidence starts a page, rows and figures are never cut, table headers repeat, and
the labels keep their colours.
"""

LABEL_COLOURS = {
    "flagged": ("#b3261e", "#fff"),
    "inconclusive": ("#f0b400", "#1a1a1a"),
    "pass": ("#1e7b34", "#fff"),
    "not-informative": ("#d0d0d0", "#1a1a1a"),
    "not-evaluated": ("#d0d0d0", "#1a1a1a"),
}
"""Label -> background and text colour."""

_LABELS = "".join(f".label.{name},.verdict.{name}{{background:{bg};color:{fg}}}" for name, (bg, fg) in LABEL_COLOURS.items())

_WIDE = ".scroll{overflow-x:auto;max-width:100%}table.wide th{vertical-align:bottom;min-width:5em}ul.releases{list-style:none;padding:0;margin:.2em 0}ul.releases li{display:inline-block;margin-right:1.2em}"
"""A table of many columns (``html_table.WIDE``) scrolls in its own box; its headers read across."""

CSS = (
    "*{box-sizing:border-box}"
    "html{-webkit-text-size-adjust:100%}"
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;line-height:1.4;color:#1a1a1a;"
    "max-width:72rem;margin:0 auto;padding:1rem 1.25rem}"
    "h1{font-size:1.6rem;margin:.2em 0}h2{font-size:1.3rem;margin-top:2em;border-bottom:2px solid #ddd;padding-bottom:.2em}"
    "h3{font-size:1rem;margin:1.4em 0 .4em}"
    ".meta,.audience{color:#444;margin:.2em 0}"
    ".audience{font-style:italic}"
    "nav ol{columns:2 16rem;margin:.5em 0;padding-left:1.4em}nav a{color:#1a4f8b}"
    ".verdict{border-radius:6px;padding:.8rem 1.2rem;margin:1rem 0}"
    ".verdict .word{font-size:2.4rem;font-weight:800;letter-spacing:.04em;text-transform:uppercase;margin:0}"
    ".verdict .counts{font-size:1.15rem;font-weight:600;margin:.2em 0}.verdict p{margin:.3em 0}"
    ".label{display:inline-block;border-radius:3px;padding:0 .35em;font-weight:700;font-size:.85em;white-space:nowrap}"
    f"{_LABELS}"
    "table{border-collapse:collapse;font-size:.8rem;margin:.3em 0 1em;max-width:100%}"
    "th,td{border:1px solid #ccc;padding:2px 5px;vertical-align:top;text-align:left;overflow-wrap:break-word}td.long{overflow-wrap:anywhere}"
    "th{background:#f3f3f3;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "tbody tr:nth-child(even){background:#fafafa}"
    "figure{margin:.5em 0 1.2em}img{max-width:100%;height:auto}figcaption{font-size:.85rem;color:#444}"
    ".evidence li{margin:.25em 0}.evidence .who{color:#555;font-size:.85em}.evidence .headline{color:#555;font-size:.85em;white-space:nowrap}"
    "details summary{cursor:pointer;font-weight:600;margin:.4em 0}"
    ".note{margin:.4em 0}"
    f"{_WIDE}"
    "@media (max-width:900px){body{padding:.5rem .6rem}table{font-size:.7rem}th,td{padding:1px 3px}"
    ".verdict .word{font-size:2rem}}"
    "@media print{@page{margin:12mm}"
    "body{max-width:none;margin:0;padding:0;font-size:9pt}nav{display:none}"
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}"
    "section.page{break-before:page}h2,h3{break-after:avoid}"
    "tr,figure,img,.verdict,li{break-inside:avoid}thead{display:table-header-group}"
    "table{font-size:7pt}a{color:inherit;text-decoration:none}}"
)
