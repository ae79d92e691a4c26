"""A browser's Web Push subscription, turned on or off (issue 49 item 3): "Notify this
browser of my turns".

Under the key rules of every other notice target (issue 45): a seat link subscribes the
browser for that seat's game alone; the person's settings link (or the games page's
link) for all their games. What the browser posts is its ``PushSubscription.toJSON()``:
``{"endpoint": ..., "keys": {"p256dh": ..., "auth": ...}}``; the endpoint is checked
like a target's URL (https, a public host) and the keys like RFC 8291's. Refusals are
``BadRequest`` with words and change nothing. The endpoint is a capability (whoever has
it and the keys can push to that browser): it is never shown whole, only masked.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from app import services
from app import i18n
from app.channels import push, targets
from app.channels.models import NoticeTarget
from app.clock import deadlines as dl
from app.db import read_session, write_session
from app.services import person_settings

#: What the page and the JSON say when the operator has not made VAPID keys.
NOT_SET_UP = ("Push notices are not set up on this server (the operator makes its keys "
              "with `flask --app app push-keys`). Your mail comes as before.")


def public_key() -> str | None:
    """The server's VAPID public key for the browser (None: push is off here)."""
    return push.public_key()


def checked(body: Any) -> tuple[str, str, str]:
    """``(endpoint, p256dh, auth)`` of a posted subscription, or ``BadRequest``."""
    if push.public_key() is None:
        raise services.BadRequest(NOT_SET_UP)
    if not isinstance(body, dict):
        raise services.BadRequest(i18n._('Send the browser\'s subscription as JSON: {"endpoint": '
                                  '..., "keys": {"p256dh": ..., "auth": ...}}.'))
    try:
        endpoint = push.check_endpoint(body.get("endpoint"))
        p256dh, auth = push.check_keys(body.get("keys"))
    except ValueError as exc:
        raise services.BadRequest(str(exc)) from None
    return endpoint, p256dh, auth


def _answer(target: Any, scope: str) -> dict[str, Any]:
    return {"subscribed": True, "scope": scope, "shown": targets.mask(target.url),
            "id": target.id}


def subscribe_seat(access: services.SeatAccess, body: Any) -> dict[str, Any]:
    """This browser gets this seat's notices by push (this game only)."""
    endpoint, p256dh, auth = checked(body)
    with write_session() as session:
        try:
            target = push.subscribe(session, endpoint=endpoint, p256dh=p256dh, auth=auth,
                                    now=dl.now(), game_id=access.game_id, seat=access.seat)
        except ValueError as exc:
            raise services.BadRequest(str(exc)) from None
        return _answer(target, "seat")


def unsubscribe_seat(access: services.SeatAccess, body: Any) -> dict[str, Any]:
    """This browser no longer gets this seat's notices by push."""
    endpoint = body.get("endpoint") if isinstance(body, dict) else None
    with write_session() as session:
        gone = push.unsubscribe(session, str(endpoint or ""), game_id=access.game_id,
                                seat=access.seat)
    return {"subscribed": False, "removed": gone, "scope": "seat"}


def subscribe_address(address: str, body: Any, via: str,
                      key_id: str | None = None) -> dict[str, Any]:
    """This browser gets the notices of all the person's games by push: a person-wide
    change like any other (``person_settings.save``): kept, mailed to the address at once
    with a link that undoes it. ``via``: the key that opened the door."""
    endpoint, p256dh, auth = checked(body)
    person_settings.save(address, person_settings.Wanted(add_push=(endpoint, p256dh, auth)),
                         via, key_id=key_id)
    with read_session() as session:
        found = _of_address(session, address, endpoint)
        assert found is not None  # (just stored)
        return _answer(found, "address")


def _of_address(session: Session, address: str, endpoint: str) -> NoticeTarget | None:
    return session.exec(select(NoticeTarget).where(
        func.lower(col(NoticeTarget.address)) == address.strip().lower(),
        col(NoticeTarget.url) == endpoint.strip(),
        col(NoticeTarget.service) == push.SERVICE)).first()


def unsubscribe_address(address: str, body: Any, via: str,
                        key_id: str | None = None) -> dict[str, Any]:
    """This browser no longer gets the person's notices by push: a change kept and mailed
    like the subscription (its undo says to press the button again: the browser's keys
    are not kept)."""
    endpoint = body.get("endpoint") if isinstance(body, dict) else None
    with read_session() as session:
        found = _of_address(session, address, str(endpoint or ""))
        number = int(found.id or 0) if found is not None else None
    if number is not None:
        person_settings.save(address, person_settings.Wanted(remove_target=number), via,
                             key_id=key_id)
    return {"subscribed": False, "removed": number is not None, "scope": "address"}
