"""Issue 45 item 6: times and days are written with the digits 0-9 only.

Found: quiet hours accepted ``２２:００`` (full-width digits). Python's ``\\d``, ``str.isdigit``
and ``int`` take any Unicode digit (full-width, Arabic-Indic, Devanagari, a superscript
"²" that ``int`` then refuses with its own words), so a time the person's page shows
back as 22:00 was not what they typed, and a day given as "²" failed without words. Each
is refused in words saying how to write it, and nothing is stored.
"""
from __future__ import annotations

import pytest

from app import services
from app.clock.calendar import Quiet, parse_days
from app.db import read_session
from app.services import my_games, person_settings
from tests.conftest import TEST_SECRET_KEY

#: 22:00 in other digits: full-width, Arabic-Indic, Extended Arabic-Indic, Devanagari,
#: Bengali, Thai; one full-width digit among ASCII ones; a superscript two.
OTHER_DIGITS = ["２２:００", "٢٢:٠٠", "۲۲:۰۰", "२२:००", "২২:০০", "๒๒:๐๐", "22:0０", "2²:00",
                "２２：００"]
TIME_WORDS = "write the time with the digits 0-9, like 22:00"


@pytest.mark.parametrize("typed", OTHER_DIGITS)
def test_quiet_hours_in_other_digits_are_refused_with_how_to_write_them(typed):
    with pytest.raises(ValueError, match=TIME_WORDS):
        Quiet.parse(typed, "08:00")
    with pytest.raises(ValueError, match=TIME_WORDS):
        Quiet.parse("08:00", typed)
    with pytest.raises(services.BadRequest, match=TIME_WORDS):
        person_settings.check_quiet(typed, "07:00")


def test_the_same_hours_in_ascii_digits_are_taken():
    assert Quiet.parse("22:00", "08:00").words() == "22:00–08:00"
    assert person_settings.check_quiet(" 22:00 ", "7:30") == (22 * 60, 7 * 60 + 30)


@pytest.mark.parametrize("typed", ["٣", "３", "²", "１-５", "mon-５"])
def test_running_days_in_other_digits_are_refused_in_words(typed):
    with pytest.raises(ValueError, match="write the day with the digits 0-9"):
        parse_days(typed)
    with pytest.raises(ValueError, match="write the day with the digits 0-9"):
        parse_days([typed])
    assert parse_days("1-5") == frozenset({1, 2, 3, 4, 5})
    assert parse_days(["3"]) == frozenset({3})


def test_the_settings_page_refuses_full_width_quiet_hours_and_changes_nothing(app, client,
                                                                             new_game):
    """Through the games page's settings door (``/my-games/<token>/settings``)."""
    new_game(seats=2)
    address = "ann@example.com"
    person_settings.set_quiet(address, "23:00", "07:00")
    with read_session() as session:
        token = my_games.make_link_token(session, address, TEST_SECRET_KEY)

    answer = client.post(f"/my-games/{token}/settings",
                         data={"quiet_start": "２２:００", "quiet_end": "０８:００"})

    assert answer.status_code == 400
    assert TIME_WORDS in answer.get_data(as_text=True)
    with read_session() as session:
        row = person_settings.find(session, address)
        assert row is not None and (row.quiet_start, row.quiet_end) == (23 * 60, 7 * 60)
    taken = client.post(f"/my-games/{token}/settings",
                        data={"quiet_start": "22:00", "quiet_end": "08:00"})
    assert taken.status_code == 303
