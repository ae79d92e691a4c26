"""Silver Eye Post: a play-by-email server for the card game Silver Eye.

``create_app`` is a flaskr-style factory. Flask, SQLModel and SQLAlchemy are
imported inside it, never at module level, so that ``import app.engine``
(the pure rules engine) stays light and free of web or database code.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the Flask app; ``config`` overrides defaults and the environment."""
    from pathlib import Path

    from flask import Flask

    from app import cli, db
    from app.config import load_config
    from app.web import register_blueprints

    root = Path(__file__).resolve().parent.parent
    app = Flask(
        __name__,
        instance_relative_config=True,
        template_folder=str(root / "templates"),
        static_folder=str(root / "static"),
    )
    if config and config.get("INSTANCE_PATH"):  # tests and tools keep their files apart
        app.instance_path = str(config["INSTANCE_PATH"])
    app.config.update(load_config(app.instance_path, config))
    proxies = int(app.config.get("PROXY_FIX") or 0)
    if proxies > 0:  # behind N reverse proxies: trust their X-Forwarded-* headers
        from werkzeug.middleware.proxy_fix import ProxyFix
        # Flask's documented way to wrap the WSGI app; mypy allows no assignment to a
        # method (python/mypy#2427), setattr does the same thing
        setattr(app, "wsgi_app",
                ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies))
    db.init_app(app)
    from app.mail import dkim_signing
    with app.app_context():  # half-set DKIM settings stop the start, with a sentence
        dkim_signing.signer()
    register_blueprints(app)
    cli.init_app(app)
    return app
