"""The exception tree: every curl-compatible exit code, and no password in any message."""

from __future__ import annotations

import inspect

import pytest

import anyurl.errors as errors
from anyurl.url import parse

EXIT_CODES = {
    "OptionError": 2,
    "StreamClosed": 1,
    "TLSHandshakeFailed": 35,
    "TLSCertificateError": 60,
    "TLSSetupError": 77,
    "TLSClientCertificateError": 58,
    "FileSizeExceeded": 63,
    "URLError": 3,
    "URLSyntaxError": 3,
    "UnsupportedHost": 3,
    "UnsupportedScheme": 1,
    "HostNotResolved": 6,
    "ProxyNotResolved": 5,
    "ProxyError": 97,
    "TLSNotOffered": 64,
    "ConnectFailed": 7,
    "TransferTimeout": 28,
    "LoginDenied": 67,
    "RemoteFileNotFound": 78,
    "PartialTransfer": 18,
    "RemoteAccessDenied": 9,
    "ProtocolError": 8,
    "BadContentEncoding": 61,
    "ServerError": 22,
    "ResumeFailed": 36,
    "TooManyRedirects": 47,
    "FileExists": 73,
    "FileReadError": 37,
    "LocalWriteError": 23,
    "ConnectionLost": 56,
    "PolicyRefused": 7,
    "LocalFileNotFound": 37,
    "SchemeRefused": 1,
    "Aborted": 42,
    "NetworkError": 7,
}


def test_every_error_class_has_its_exit_code() -> None:
    classes = {
        name: cls for name, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, errors.AnyURLError) and cls is not errors.AnyURLError
    }
    assert set(classes) == set(EXIT_CODES)
    for name, code in EXIT_CODES.items():
        assert classes[name].exit_code == code, name
        assert name in errors.__doc__  # drawn in the module docstring


def test_all_lists_every_error() -> None:
    assert sorted(errors.__all__) == sorted([*EXIT_CODES, "AnyURLError", "HTTP_ERROR_EXIT"])


@pytest.mark.parametrize("cls", [errors.LoginDenied, errors.RemoteFileNotFound,
                                 errors.ConnectFailed])
def test_url_is_masked_in_errors(cls: type[errors.AnyURLError]) -> None:
    url = parse("ftp://user:hunter2@h/x")
    exc = cls(f"failed for {url.masked()}", url=url)
    assert "hunter2" not in str(exc)
    assert exc.url == "ftp://user:****@h/x"


def test_hint_is_appended() -> None:
    exc = errors.LoginDenied("login refused.", hint="Check the password.")
    assert str(exc) == "login refused. Check the password."
