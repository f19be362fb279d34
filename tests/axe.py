"""axe-core in the browser tests: ``axe_violations(tab)`` runs it on the page a Playwright tab
shows and returns its violations (WCAG 2.x A and AA rules).

axe-core is installed beside the published Node client (tests/contract/node, by
``bash scripts/bootstrap.sh test``). It is run with ``evaluate``, which the page's CSP
(``script-src 'self'``) does not govern, so the page is tested as served.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

AXE_JS = Path(__file__).with_name("contract") / "node" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@functools.cache
def _source() -> str:
    assert AXE_JS.exists(), "run `bash scripts/bootstrap.sh test` to install axe-core"
    return AXE_JS.read_text()


def axe_violations(
    tab: Any,
    *,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    best_practice: bool = False,
) -> list[dict[str, Any]]:
    """The violations axe finds on the tab's page (or the parts ``include`` selects):
    ``[{"id", "impact", "help", "nodes": [target...]}]``. ``best_practice`` adds axe's
    best-practice rules (``empty-table-header``, ``page-has-heading-one``...)."""
    tab.evaluate(_source())
    result = tab.evaluate(
        """async ([tags, include, exclude]) => {
          const context = { exclude: exclude.map((s) => [s]) };
          if (include.length) context.include = include.map((s) => [s]);
          const found = await axe.run(context, { runOnly: { type: "tag", values: tags } });
          return found.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => n.target.join(" ")),
          }));
        }""",
        [TAGS + (["best-practice"] if best_practice else []), include or [], exclude or []],
    )
    return list(result)
