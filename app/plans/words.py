"""The words of the reply grammar's refusals and of the engine's refusals in a mail
(issue 50: whole sentences, each a message of the catalogue, said in the reader's
language where ``app.mail.commands`` reads a line or says an engine refusal).

Tables of English message ids (``N_``), translated where they are said (``_``); the
engine-number templates take the engine's numbers as ``{0}``.. and the same plus one
after them (``commands.mail_words``).
"""
from __future__ import annotations

import re

from app.i18n import N_

#: What a number stands for, and how a refusal says it is not one (whole sentences).
SHOULD_BE = {
    "card": N_('"%(word)s" should be a card number.'),
    "seat": N_('"%(word)s" should be a player number.'),
    "value": N_('"%(word)s" should be a card value.'),
    "pile": N_('"%(word)s" should be a pile card number (1 = bottom).'),
}
NOT_FROM_ONE = {
    "card": N_('"%(word)s" is not a card number: numbers count from 1, as in the menu.'),
    "seat": N_('"%(word)s" is not a player number: numbers count from 1, as in the menu.'),
    "value": N_('"%(word)s" is not a card value: numbers count from 1, as in the menu.'),
    "pile": N_('"%(word)s" is not a pile card number (1 = bottom): numbers count from 1, '
               'as in the menu.'),
}
#: What an action's missing argument is, as its refusal says it.
WANTS = {"positions": N_('"%(verb)s" needs card numbers.'),
         "position": N_('"%(verb)s" needs a card number.'),
         "seat": N_('"%(verb)s" needs a player number.'),
         "end": N_('"%(verb)s" needs left or right.'),
         "value": N_('"%(verb)s" needs a card value.')}


#: The engine's messages that name a 0-based number, and how a mail says them
#: (issue 17 item 4: "no card at position 8 ... (0 to 4)" under "Cards count from 1").
#: In each template ``{0}``.. are the numbers as the engine said them, ``{k}``..
#: (k = how many it said) the same plus one.
ENGINE_NUMBERS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), template) for pattern, template in (
        (r"There is no card at position (\d+): that village has (\d+) cards \(0 to -?\d+\)\.",
         N_("There is no card #{2}: that village has {1} cards (#1 to #{1}).")),
        (r"You have no card at position (\d+): your village has (\d+) cards \(0 to -?\d+\)\.",
         N_("You have no card #{2}: your village has {1} cards (#1 to #{1}).")),
        (r"There is no village (\d+): villages are numbered 0 to (\d+)\.",
         N_("There is no player {2}: players are numbered 1 to {3}.")),
        (r"There is no seat (\d+) in this game\.", N_("There is no player {1} in this game.")),
        (r"It's not your turn: seat (\d+) is playing\.",
         N_("It's not your turn: player {1} is playing.")),
        (r"Position (\d+) is not one of your facedown cards\.",
         N_("Card #{1} is not one of your facedown cards.")),
        (r"The pile has (\d+) cards \(0 = bottom to -?\d+ = top\)\.",
         N_("The pile has {0} cards (1 = bottom to {0} = top).")),
        (r"The deck has (\d+) cards \(0 = top to -?\d+\)\.",
         N_("The deck has {0} cards (1 = top to {0}).")),
        (r"This page is ahead of the game: step (\d+) has not happened \(the game is at "
         r"step (\d+)\)\.", N_("This reply answers a mail about a position the game "
                                "has not reached.")),
    ))
ENGINE_PHRASES = (
    ('like {"type": "peek", "positions": [0, 1]}', N_('like "peek 1 2"')),
    ("Positions are whole numbers, 0 for your leftmost card.",
     N_("Cards are numbered from 1, your leftmost card.")),
    ("Say which of your cards to exchange: 'positions' is a list like [0] or [1, 3].",
     N_('Say which of your cards to exchange, like "X 1" or "X 2 4".')),
    ("'into' must be one of the positions you exchange.",
     N_('"into" must be one of the cards you exchange.')),
)
