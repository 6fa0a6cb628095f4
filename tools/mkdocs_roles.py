"""MkDocs hook: show the docstrings' Sphinx roles as plain code in the API reference.

The docstrings name other objects the Sphinx way (``:func:`run_pipeline```,
``:class:`~agents.policy.Policy```), which mkdocstrings renders verbatim. This hook, named in
``mkdocs.yml`` (``hooks:``), drops the role prefix and, for a ``~`` reference, keeps the last
name, as Sphinx shows them.
"""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:mod|func|class|meth|data|attr|exc|obj|ref|const|py:\w+):(?=<code>)")
TILDE = re.compile(r"<code>~(?:[\w.]+\.)?(\w+(?:\(\))?)</code>")


def on_page_content(html: str, **kwargs) -> str:
    """Rewrite one rendered page (MkDocs' ``on_page_content`` event).

    Args:
        html: The page's HTML.
        **kwargs: The event's other arguments (page, config, files), unused.

    Returns:
        The HTML without role prefixes before inline code.
    """
    return TILDE.sub(r"<code>\1</code>", ROLE.sub("", html))
