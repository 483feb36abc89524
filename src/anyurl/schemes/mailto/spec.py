"""The mailto scheme's descriptor (RFC 1738 3.5): an address; a message sent over SMTP."""

from __future__ import annotations

from anyurl.registry.spec import DemoCase, DemoServer, SchemeSpec
from anyurl.schemes.mailto.flags import FLAGS
from anyurl.schemes.mailto.options import MailtoOptions
from anyurl.schemes.mailto.view import MailtoPart
from anyurl.url.charset import decode

__all__ = ["SPEC"]

SPEC = SchemeSpec(
    names=("mailto",),
    flags=FLAGS,
    handler="anyurl.schemes.mailto.handler:MailtoHandler",
    summary="a message submitted over SMTP (RFC 5321) to a relay",
    example="mailto:someone@example.org",
    view=lambda url: MailtoPart(decode(url.opaque or "")),
    view_module="anyurl.schemes.mailto.view",
    options_module="anyurl.schemes.mailto.options",
    followable=False,  # sends mail: a mirror must never follow it
    not_in_browser="mailto: sends mail; the gateway never does that for a web page. "
                   "The link below hands it to this machine's mail program.",
    demo=(DemoCase("mailto:demo@example.org", "a message submitted over SMTP",
                   DemoServer("anyurl.schemes.mailto.loopback"),
                   (MailtoOptions(subject="anyurl demo", body=b"Sent by anyurl demo.\n"),),
                   config=lambda port: {"smtp_relay": f"127.0.0.1:{port}",
                                        "mail_from": "demo@anyurl.test"}),),
)
