"""Table talk (issue 20): the one public conversation of a game, kept apart from the
action log (talk is not a move: the engine never sees it, and a replay of the log
must equal the live state without it). ``models`` holds its table, ``store`` its
queries; the use cases (limits, hiding, muting) are ``app.services.talk``, what talk
does to mail is ``app.mail.table_talk``.
"""
