"""Deciding ahead (issue 35), the feature's room below ``mail``: the ``plan`` table and
the words its rows left for the seat's next mail (``models``), and the words people write
a plan or standing orders in (``grammar``, read for a reply and for the seat page's box).
Below ``mail`` (which reads and tells of them) and ``services`` (which applies them:
``services.plans``); the shapes and their logic are ``app.engine.plans``."""
