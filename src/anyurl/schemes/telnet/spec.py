"""The telnet scheme's descriptor (RFC 1738 3.8): port 23, a login, an interactive session."""

from __future__ import annotations

from anyurl.registry.spec import DemoCase, DemoServer, SchemeSpec
from anyurl.schemes.telnet.flags import FLAGS
from anyurl.schemes.telnet.options import TelnetOptions
from anyurl.schemes.telnet.view import TelnetPart

__all__ = ["SPEC"]

SPEC = SchemeSpec(
    names=("telnet",),
    flags=FLAGS,
    handler="anyurl.schemes.telnet.handler:TelnetHandler",
    summary="an interactive session, or a scripted one with --telnet-command",
    example="telnet://host.example.org/",
    default_port=23,
    view=lambda url: TelnetPart(),
    view_module="anyurl.schemes.telnet.view",
    cli_hints={"Put it in the URL (telnet://user:password@host/) or run interactively.":
               "Give it with -u USER:PASSWORD, or run anyurl on a terminal to be asked for it."},
    options_module="anyurl.schemes.telnet.options",
    login=True,
    followable=False,  # opens a session: a mirror must never follow it
    not_in_browser="telnet: opens an interactive session, which a web page cannot hold; "
                   "the link below hands it to this machine's telnet client.",
    demo=(DemoCase("telnet://demo@127.0.0.1:{port}/",
                   "login as demo (RFC 1738's advice), type a command, the transcript "
                   "until quiet", DemoServer("anyurl.schemes.telnet.loopback", ("--user", "demo")),
                   (TelnetOptions(idle=1.0, commands=("echo hello from anyurl",)),)),),
)
