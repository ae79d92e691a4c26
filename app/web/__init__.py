"""The web layer: blueprints that parse, authenticate and call ``app.services``.

``register_blueprints`` is the one list of blueprints; each feature adds its
own line. Nothing here interprets the rules of the game.
"""
from __future__ import annotations

from typing import Any


def register_blueprints(app: Any) -> None:
    """Attach every blueprint of the site to ``app``."""
    from app.web import access_log, cookie_session, metrics, security_headers
    # first, so that the timer starts before any other before_request (issue 19 item 5)
    metrics.init_app(app)  # /metrics, and every request counted by route
    access_log.init_app(app)  # one safe line per request
    security_headers.init_app(app)  # CSP, HSTS, no Referer
    cookie_session.init_app(app)  # the flash cookie, read only when a request has one
    from app.web import language  # the reader's language: person, cookie, browser (issue 50)
    language.init_app(app)
    from app.web import api, errors, lobby, play, replay, spectate

    app.register_blueprint(errors.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(lobby.bp)
    app.register_blueprint(play.bp)
    app.register_blueprint(spectate.bp)
    app.register_blueprint(replay.bp)
    from app.web import round_summary  # the round summary's dismiss button on the seat page
    app.register_blueprint(round_summary.bp)
    from app.web import my_games  # all my games: the magic link and the list
    app.register_blueprint(my_games.bp)
    from app.web import person  # a person's settings for all their games (issue 32)
    app.register_blueprint(person.bp)
    from app.web import address_move  # moving to a new address, by oneself (issue 47 item 5)
    app.register_blueprint(address_move.bp)
    from app.web import mail_routes  # mail and clock: unsubscribe, seat mail/clock, /dev/mail
    app.register_blueprint(mail_routes.bp)
    from app.web import inbound  # play by replying: POST /inbound/mail, /help/mail
    app.register_blueprint(inbound.bp)
    from app.web import health  # /healthz and /readyz for monitors (issue 17 item 1)
    app.register_blueprint(health.bp)
    from app.web import talk  # table talk: the seat page's box, hide, mute, JSON (issue 20)
    app.register_blueprint(talk.bp)
    from app.web import targets  # notice targets: Discord, Slack, ntfy... (issue 20)
    app.register_blueprint(targets.bp)
    from app.web import table  # the table's people: resign, more time, votes, rematch (issue 21)
    app.register_blueprint(table.bp)
    from app.web import plan_forms  # deciding ahead on the seat page (issue 35)
    app.register_blueprint(plan_forms.bp)
    from app.web import push  # Web Push: /sw.js, the manifest, subscribing (issue 49)
    app.register_blueprint(push.bp)
    from app.web import standing  # people's pages and the leaderboard (issue 47)
    app.register_blueprint(standing.bp)
    from app.web import tables  # open tables: the list, sitting down, the mailed link (48)
    app.register_blueprint(tables.bp)
    if app.config["BENCH_ENDPOINTS"]:
        app.register_blueprint(api.bench_bp)
        app.before_request(api.start_cpu_clock)
        app.after_request(api.cpu_header)
