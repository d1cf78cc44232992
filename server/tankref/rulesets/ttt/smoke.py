"""Smoke screens: use, placement (TTT-SM1, TTT-SM2); strength and decay live in sight/turns."""

from __future__ import annotations

from tankref.core.adjudication import refuse
from tankref.core.geometry import distance
from tankref.rulesets.ttt.actions import Smoke
from tankref.rulesets.ttt.adjudication import Context
from tankref.rulesets.ttt.cards import SmokeAbility
from tankref.rulesets.ttt.flow import require_own_phase
from tankref.rulesets.ttt.presentation import tank_label
from tankref.rulesets.ttt.state import SmokeScreen, TableState, TankState


def bars_move_engage(ability: SmokeAbility) -> bool:
    """TTT-SM1: a reusable ability bars Move and Engage that turn, unless its card says not."""
    return ability.uses > 1 and ability.bars_move_engage


def check_smoke(
    state: TableState, action: Smoke
) -> tuple[TankState, SmokeAbility, tuple[float, float]]:
    tank = require_own_phase(state, action.tank_id)
    label = tank_label(tank)
    ability = tank.card.smoke_ability(action.ability)
    if ability is None:
        names = ", ".join(s.name for s in tank.card.smoke) or "none"
        refuse(
            "NO_SUCH_SMOKE",
            "TTT-SM1",
            f"ability: {label}'s card has no smoke {action.ability!r} (it has: {names})",
            field="ability",
        )
    used = tank.smoke_uses.get(ability.name, 0)
    if used >= ability.uses:
        refuse(
            "SMOKE_USED_UP",
            "TTT-SM1",
            f"{label} has used {ability.name} {used} of {ability.uses} time(s) this game",
        )
    if tank.smoked:
        refuse("SMOKE_ONCE_PER_TURN", "TTT-SM1", f"{label} has already laid smoke this turn")
    if tank.bound_to_recover:
        refuse("MUST_RECOVER", "TTT-MR4", f"{label} is Shaken and Immobilized: it may only Recover")
    if tank.recover_tried:
        refuse(
            "ACTION_AFTER_RECOVER", "TTT-R1", f"{label} tried to Recover: no other action this turn"
        )
    if bars_move_engage(ability) and (tank.moved != "none" or tank.engaged):
        refuse(
            "SMOKE_AFTER_MOVE",
            "TTT-SM1",
            f"{label}'s {ability.name} can be used again, so it may not Move or Engage in the "
            "turn it pops smoke",
        )
    if ability.kind == "mortar":
        if action.x is None or action.z is None:
            refuse(
                "SMOKE_POINT_NEEDED",
                "TTT-SM2",
                f"x, z: {ability.name} is a mortar: pick the point to smoke",
                field="x",
            )
        point = (action.x, action.z)
        reach = distance(tank.pos, point)
        if ability.range is not None and reach > ability.range:
            refuse(
                "MORTAR_OUT_OF_RANGE",
                "TTT-SM2",
                f'x, z: the point is {reach:.1f}" away; {ability.name} reaches {ability.range:g}"',
                field="x",
                distance=round(reach, 2),
                range=ability.range,
            )
    else:
        if action.x is not None or action.z is not None:
            refuse(
                "SMOKE_ON_SELF",
                "TTT-SM2",
                f"x, z: {ability.name} is centred on the tank itself",
                field="x",
            )
        point = tank.pos
    return tank, ability, point


def do_smoke(ctx: Context, action: Smoke) -> None:
    state = ctx.state
    tank, ability, point = check_smoke(state, action)
    t = ctx.edit(tank.id)
    uses = dict(t.smoke_uses)
    uses[ability.name] = uses.get(ability.name, 0) + 1
    t.smoke_uses = uses
    t.smoked = True
    if bars_move_engage(ability):
        t.smoke_popped = True
        ctx.rule("TTT-SM1", "a reusable smoke ability: no Move or Engage for the rest of this turn")
    elif ability.uses > 1:
        ctx.rule(
            "TTT-SM1",
            "a reusable smoke ability whose card lets the tank still Move and Engage "
            "(bars_move_engage = false)",
        )
    screen = SmokeScreen(
        id=state.next_smoke_id,
        owner=t.player,
        tank_id=t.id,
        ability=ability.name,
        x=point[0],
        z=point[1],
        strength=ability.strength,
    )
    state.next_smoke_id += 1
    state.smoke = (*state.smoke, screen)
    reach = '6"' if ability.strength == 1 else '6" (-1 out to 12")'
    ctx.say(
        f"{tank_label(t)} lays a -{ability.strength} smoke screen ({ability.name}) at "
        f"({point[0]:.1f}, {point[1]:.1f}), radius {reach}; "
        f"uses {uses[ability.name]}/{ability.uses}."
    )
    ctx.event(
        "smoke",
        "TTT-SM2",
        f"Smoke {screen.id} at -{screen.strength}",
        smoke_id=screen.id,
        x=screen.x,
        z=screen.z,
        strength=screen.strength,
    )
    ctx.result.outcome.update(smoke_id=screen.id, x=screen.x, z=screen.z, strength=screen.strength)
