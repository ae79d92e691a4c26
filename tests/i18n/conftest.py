"""The clock's injected "now", the recording mailbox and a seat's forms, as the people
tests have them (tests/clock/conftest.py, tests/people/conftest.py)."""
from tests.clock.conftest import T0, Recorder, hours  # noqa: F401
from tests.clock.conftest import game_at_t0, mailbox, tick  # noqa: F401  (fixtures)
from tests.people.conftest import _turn_mail_at_once  # noqa: F401  (fixture)
