"""Which schemes a run may open: the one scheme policy, checked at the gate.

curl checks its allowed protocols (``--proto``) for every transfer it sets up, redirects
and follows included, not only for the URL typed. anyurl does the same: the resolver's
gate (:meth:`anyurl.resolver.Resolver.admit`) asks :attr:`Config.protocols
<anyurl.config.Config.protocols>` for every URL it admits, so a URL a handler derives (a
Prospero access method, a Gopher ``URL:`` item a mirror follows, a redirect, a gateway's
inner URL, a mirror's next link) meets the same policy as the one the user typed. A rule
checked only where a request enters would be bypassed by each of those.

``anyurl serve`` without ``--allow-file`` is a run whose policy refuses ``file:``; a
policy carries the hint that says how to lift it, since only its author knows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from anyurl.errors import OptionError

__all__ = ["SchemePolicy"]


@dataclass(frozen=True)
class SchemePolicy:
    """The schemes a run may open: ``only`` those (None: every registered one), less
    ``refused``. ``hint`` tells the user how to lift a refusal."""

    only: frozenset[str] | None = None
    refused: frozenset[str] = frozenset()
    hint: str = "Allow it with --proto +SCHEME (Config(protocols=...))."

    def allows(self, scheme: str) -> bool:
        """Whether a URL of ``scheme`` may be opened."""
        scheme = scheme.lower()
        return scheme not in self.refused and (self.only is None or scheme in self.only)

    def refusing(self, *schemes: str, hint: str | None = None) -> SchemePolicy:
        """This policy with ``schemes`` refused too."""
        return replace(self, refused=self.refused | {s.lower() for s in schemes},
                       hint=self.hint if hint is None else hint)

    @classmethod
    def parse(cls, text: str, base: SchemePolicy | None = None) -> SchemePolicy:
        """curl's ``--proto`` syntax, applied to ``base`` (default: every scheme).

        A comma-separated list of scheme names, each with an optional modifier: ``+``
        (the default) adds it, ``-`` removes it, ``=`` allows only the schemes named
        after it; ``all`` names every scheme. ``=http,https`` allows those two;
        ``-file`` allows all but ``file:``; ``-all,+gopher`` only gopher.
        """
        policy = base or cls()
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            mode, name = (item[0], item[1:]) if item[0] in "+-=" else ("+", item)
            name = name.strip().lower()
            if not name or not all(c.isascii() and (c.isalnum() or c in "+-.") for c in name):
                raise OptionError(
                    f"--proto {text!r}: {item!r} is not a scheme name",
                    hint="Give scheme names, as curl's --proto takes them: '=NAME,NAME' "
                         "(only those), '-NAME' (not that one), '+NAME' (that one too).")
            policy = policy._apply(mode, name)
        return policy

    def _apply(self, mode: str, name: str) -> SchemePolicy:
        if mode == "=":
            everything = name == "all"
            return replace(self, only=None if everything else frozenset({name}),
                           refused=frozenset())
        if name == "all":
            return (replace(self, only=None, refused=frozenset()) if mode == "+"
                    else replace(self, only=frozenset(), refused=frozenset()))
        if mode == "-":
            return replace(self, refused=self.refused | {name},
                           only=None if self.only is None else self.only - {name})
        only = None if self.only is None else self.only | {name}
        return replace(self, only=only, refused=self.refused - {name})

    def names(self, known: Iterable[str]) -> list[str]:
        """The schemes of ``known`` this policy allows, sorted (for messages)."""
        return sorted(s for s in known if self.allows(s))
