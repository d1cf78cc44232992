"""Actions: engage, wait, recover, smoke, end phase, crew roll ... with a client request id."""

from __future__ import annotations

from fastapi import APIRouter, Response
from pydantic import ValidationError

from tankref.server.errors import from_validation
from tankref.server.routes.deps import WriteDep, json_reply
from tankref.server.schemas import ActionRequest, Reply

router = APIRouter(prefix="/tables/{table_id}/actions", tags=["actions"])


@router.post("", response_model=Reply)
async def post_action(body: ActionRequest, access: WriteDep) -> Response:
    """Adjudicate one action. The same ``request_id`` again returns the first result and
    never rolls again. With table dice, a 409 ``DICE_NEEDED`` says which dice to roll next:
    roll them and send the action again with every face so far. A table that draws its own
    damage cards (``dice.damage_cards: table``) is asked the same way for the card
    (``need.die`` ``damage_card``): send it as ``dice.damage_card``."""
    try:
        action = access.host.rules.parse_action(body.action)
    except ValidationError as exc:
        raise from_validation(list(exc.errors()), "action") from None
    reply = await access.ref.submit(
        access.host,
        request_id=body.request_id,
        request=body.model_dump(mode="json", exclude={"request_id", "dice"}),
        build=lambda _: action,
        dice=body.dice,
        by=body.by,
    )
    return json_reply(reply)
