"""Which rulesets the referee plays, each as it describes itself (the registry's)."""

from __future__ import annotations

from fastapi import APIRouter

from tankref.rulesets import get_ruleset, ruleset_names
from tankref.server.schemas import RulesetListing

router = APIRouter(tags=["health"])


def listing(name: str) -> RulesetListing:
    rules = get_ruleset(name)
    info = rules.info()
    return RulesetListing(
        name=info.name,
        title=info.title,
        clause_prefix=info.clause_prefix,
        description=info.description,
        terrain_kinds=info.terrain_kinds,
        setups=info.setups,
        setup_schema=rules.setup_model.model_json_schema(),
        board=info.board,
        damage_deck=rules.damage_deck,
    )


@router.get("/rulesets", response_model=list[RulesetListing])
async def rulesets() -> list[RulesetListing]:
    return [listing(name) for name in ruleset_names()]
