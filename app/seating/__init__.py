"""Open tables (issue 48): a table a creator leaves partly open, where strangers sit down
by address. The rows (``models``), the rules of gates and caps in words (``rules``) and
the reads and writes of the rows (``store``); the use cases are
``app.services.open_tables``, the doors ``app.web.tables``."""
