"""Mail: what a move wants sent (intents), composing it, the outbox rows and their
sending, digests, backends."""
