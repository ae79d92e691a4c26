"""The table: what a game's people decide together (votes, ballots, time given) and the
one counter an open page polls to hear of it (``store.news``). The use cases are
``app.services.votes``, ``app.services.more_time`` and ``app.services.leaving``; the
person themself is ``app.people``."""
