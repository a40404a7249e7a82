"""The parts of a port's README every language shares: each group's parameters in the words
of the scene reference and `wander3d check`, and how to check the port against the engine."""

from __future__ import annotations

from wander3d.engine import METHOD_KEYS
from wander3d.scene import schema
from wander3d.scene.feel import group_feel

from .plan import PortPlan

#: The group keys a port's parameter object carries (the rest: colour and trails are the
#: game's business; count is how many agents it spawns).
GROUP_KEYS = ("max_speed", "max_force", "mass")


def parameter_section(plan: PortPlan, spelling: dict[str, str] | None = None) -> str:
    """Markdown: per group, what `wander3d check` says of it and a table of its parameters
    (name as the language spells it, value, unit, meaning); `spelling` maps scene keys to the
    language's names (camelCase in JS and C#), unchanged where absent."""
    spelling = spelling or {}
    out = []
    for g in plan.groups:
        p = g.params
        feel = group_feel(p, plan.scene.enclosure)
        out.append(f"### Group {p.name!r} ({p.count} agents)\n")
        out.append(f"`wander3d check` says: {feel.line()}\n")
        out.append("| parameter | value | unit | meaning |")
        out.append("|---|---|---|---|")
        keys = [("groups", k, getattr(p, k)) for k in GROUP_KEYS]
        wander = p.wander
        names = ("method", *METHOD_KEYS[wander.method], "vertical", "steering")
        keys += [("groups.wander", k, getattr(wander, k)) for k in names]
        for table, name, value in keys:
            key = schema.key(table, name)
            shown = f'"{value}"' if isinstance(value, str) else f"{value:g}"
            doc = key.doc.replace("|", "\\|")
            out.append(f"| `{spelling.get(name, name)}` | {shown} | {key.unit} | {doc} |")
        out.append("")
    return "\n".join(out)


def conformance_section(plan: PortPlan, command: str) -> str:
    """Markdown: how to check this port against the engine, byte for byte."""
    return (
        "## Check it against wander3d\n\n"
        "The port repeats wander3d's run of `scene.toml` (this port's groups, seed "
        f"{plan.scene.seed}, dt {plan.scene.dt:g} s) bit for bit. In this folder, with nothing "
        "but the language's own tools and wander3d:\n\n"
        "```sh\n"
        f"{command.replace('DIR/', '').replace('SECONDS', '60').replace('SAMPLE_RATE', '10')}\n"
        "wander3d run scene.toml --seconds 60 --sample-rate 10 --out ref.csv\n"
        "cmp out.csv ref.csv && echo identical\n"
        "```\n\n"
        "`start.txt` is the engine's starting state of the scene (exact, as hex doubles); "
        "the conformance driver starts from it. docs/ports.md in wander3d's repository is "
        "the contract every port follows.\n"
    )
