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

from app import services
from app.channels import push, targets
from app.clock import deadlines as dl
from app.db import write_session

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
        raise services.BadRequest('Send the browser\'s subscription as JSON: {"endpoint": '
                                  '..., "keys": {"p256dh": ..., "auth": ...}}.')
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


def subscribe_address(address: str, body: Any) -> dict[str, Any]:
    """This browser gets the notices of all the person's games by push."""
    endpoint, p256dh, auth = checked(body)
    with write_session() as session:
        try:
            target = push.subscribe(session, endpoint=endpoint, p256dh=p256dh, auth=auth,
                                    now=dl.now(), address=address)
        except ValueError as exc:
            raise services.BadRequest(str(exc)) from None
        return _answer(target, "address")


def unsubscribe_address(address: str, body: Any) -> dict[str, Any]:
    endpoint = body.get("endpoint") if isinstance(body, dict) else None
    with write_session() as session:
        gone = push.unsubscribe(session, str(endpoint or ""), address=address)
    return {"subscribed": False, "removed": gone, "scope": "address"}
