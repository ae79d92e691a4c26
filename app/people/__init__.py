"""The people of a game beyond the rules (issue 21): the votes they hold (abort by
agreement, a substitute for a seat, a rematch) with their ballots, and the time they
give each other. Tables and their queries only: the use cases are
``app.services.votes`` and ``app.services.people``."""
