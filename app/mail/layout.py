"""Mail HTML that phone mail clients can show: styles inlined with css-inline.

The templates keep their styles in one ``<style>`` block of
``templates/mail/_layout.html``; many clients (Gmail's apps, Outlook) drop or
ignore ``<style>``, so every rule is copied into the ``style`` attribute of the
elements it matches. Only at-rules (the ``@media`` tweaks for narrow screens)
stay in the head, where the clients that read them find them. Nothing is
fetched: remote stylesheets are never loaded.
"""
from __future__ import annotations

import css_inline

_INLINER = css_inline.CSSInliner(keep_at_rules=True, load_remote_stylesheets=False)


def inline_styles(html: str) -> str:
    """``html`` with its ``<style>`` rules moved into ``style`` attributes."""
    return _INLINER.inline(html)
