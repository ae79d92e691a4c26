"""A person's standing across games (issue 47): the reliability record and the rating,
attributed by tenure. ``outcome`` (pure: what an ended game says about each stretch at a
seat), ``record`` (the record in words), ``rating`` (OpenSkill), ``settle`` (a game's
end, in its unit of work), ``read`` (what pages show), ``rerate`` (every game again)."""
