"""The damage card a penetrating hit draws and what it does (TTT-E7), with the morale rules a
card sets off: a catastrophic death seen by friends (TTT-MO2), a Routed crew bailing out of
an Immobilized tank (TTT-MR5), Shaken and Immobilized (TTT-MR4)."""

from __future__ import annotations

from tankref.core.adjudication import assign, refuse
from tankref.core.trusted import copied
from tankref.rulesets.ttt.adjudication import Context
from tankref.rulesets.ttt.cards import DamageCard
from tankref.rulesets.ttt.morale import bail_out, catastrophe_seen
from tankref.rulesets.ttt.presentation import tank_label


def draw_damage_card(ctx: Context, tank_id: str) -> DamageCard:
    """Without replacement from the table's deck; a full deck is shuffled in when it is empty.
    A table that draws its own cards is asked for the one its owner drew (TTT-E7: "the player
    controlling the hit tank must draw a damage card"), naming the cards left to draw.

    Drawing a uniformly random card from what is left is the same as drawing the top card of
    a shuffled pile, and costs the generator one number per card instead of a whole shuffle.
    """
    state = ctx.state
    deck = copied(state.deck)
    if not deck.draw_pile:
        assign(deck, draw_pile=state.rules.deck_names(), discard=(), shuffles=deck.shuffles + 1)
        ctx.event("deck_shuffled", "TTT-E7", "The damage deck is shuffled", shuffles=deck.shuffles)
    pile = deck.draw_pile

    def ask() -> tuple[str, dict[str, object]]:
        hit = state.tanks[tank_id]
        return f"for {tank_label(hit)}: {hit.player} draws it (TTT-E7)", {
            "tank_id": hit.id,
            "player": hit.player,
            "cards": sorted(set(pile)),
            "deck_reshuffled": deck.shuffles != state.deck.shuffles,
        }

    chosen = ctx.bag.take_damage_card(ask)
    if chosen is None:
        drawn = ctx.bag.uniform(len(pile))
    else:
        if chosen not in pile:
            refuse(
                "DAMAGE_CARD_NOT_IN_DECK",
                "TTT-E7",
                f"dice.damage_card: {chosen!r} is not left in the deck "
                f"(left: {', '.join(sorted(set(pile)))})",
                field="dice.damage_card",
            )
        drawn = pile.index(chosen)  # the first of its copies, as ``list.remove`` takes
    name = pile[drawn]
    # The pile without the card, sliced from the tuple: no list of it made and turned back.
    assign(deck, draw_pile=pile[:drawn] + pile[drawn + 1 :], discard=(*deck.discard, name))
    assign(state, deck=deck)
    card = state.rules.deck_card(name)
    assert card is not None  # the pile only ever holds names from the deck
    return card


def apply_damage(ctx: Context, tank_id: str, card: DamageCard) -> None:
    t = ctx.edit(tank_id)
    assign(t, damage=(*t.damage, card.name))
    label = tank_label(t)
    effect = card.effect
    text = f"Damage card: {card.name}."
    # Fields set with ``assign`` (the engine's own values, on the tank copied for this action):
    # what assignment does, without pydantic's per-assignment handler.
    if effect == "destroyed":
        assign(t, destroyed=True, destroyed_by=card.name, waiting=False, must_recover=False)
        text += f" {label} is destroyed" + (" (catastrophic)." if card.catastrophic else ".")
    elif effect == "immobilized":
        already = t.immobilized
        assign(t, immobilized=True)
        text += f" {label} is Immobilized" + (" (it already was)." if already else ".")
    elif effect == "gun_damaged":
        assign(t, gun_damage=t.gun_damage + 1)
        text += f" {label} loses a Penetration die."
    elif effect == "optics_damaged":
        assign(t, optics_damage=t.optics_damage + 1)
        text += f" {label} loses an Accuracy die."
    elif effect == "engine_damaged":
        text += f" {label}: half Movement, no Move Fast" + (
            " (no further effect: the engine was already damaged)." if t.engine_damaged else "."
        )
        assign(t, engine_damaged=True)
    elif effect == "turret_jammed":
        assign(t, turret_jammed=True)
        text += f" {label} may only Engage targets in its front arc."
    elif effect == "crew_stunned":
        assign(t, stunned="next")
        text += f" {label}'s crew takes no action in its next phase."
    else:
        text += " No effect."
    ctx.say(text)
    ctx.event("damage", "TTT-E7", text, tank_id=tank_id, card=card.name, effect=effect)
    if effect == "destroyed" and card.catastrophic:
        catastrophe_seen(ctx, t)
    if effect == "immobilized":
        if t.morale == "routed":
            bail_out(ctx, tank_id, "TTT-MR5", "Routed and Immobilized")
        elif t.morale == "shaken":
            t.must_recover = True
            t.complication_this_turn = True  # TTT-MR4: its *next* turn is bound
            ctx.rule(
                "TTT-MR4",
                f"{label} is Shaken and now Immobilized: its next turn it may only try to Recover; "
                "failure Routs it",
            )
