"""Notices where people already are (issue 20 item 3): notification targets (apprise
URLs: Discord, Slack, Matrix, ntfy, Telegram, JSON webhooks) of a seat or of an
address across its games, and the deliveries to them.

A target gets what the mail policy sends, nothing of its own: when an outbox row of a
seat leaves (``app.runners.sending``), one delivery row per active target is written,
and the notices runner (``app.runners.notices``) sends each once, with retries, checking
before every attempt that what the row announced still holds.
"""
