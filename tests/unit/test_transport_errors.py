"""The transport's error tables, row by row: each foreign exception becomes its anyurl class."""

from __future__ import annotations

import socket
import ssl

import anyio
import pytest

from anyurl.downloads.downloader import is_transient
from anyurl.errors import (
    AnyURLError,
    ConnectFailed,
    ConnectionLost,
    HostNotResolved,
    StreamClosed,
    TLSCertificateError,
    TLSHandshakeFailed,
    TransferTimeout,
)
from anyurl.net.transport import CONNECT_ERRORS, STREAM_ERRORS, _stream_error, _tls_error, map_error
from anyurl.url import parse

URL = parse("ftp://joe:s3cret@ftp.example/pub/file")


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        pytest.param(socket.gaierror(-2, "Name or service not known"), HostNotResolved,
                     id="gaierror"),
        pytest.param(ssl.SSLCertVerificationError(1, "certificate verify failed"),
                     TLSCertificateError, id="certificate"),
        pytest.param(ssl.SSLError(1, "wrong version number"), TLSHandshakeFailed, id="ssl"),
        pytest.param(anyio.EndOfStream(), TLSHandshakeFailed, id="eof-in-handshake"),
        pytest.param(anyio.BrokenResourceError(), TLSHandshakeFailed, id="broken-in-handshake"),
        pytest.param(TimeoutError(), TransferTimeout, id="timeout"),
        pytest.param(ConnectionRefusedError(111, "Connection refused"), ConnectFailed,
                     id="refused"),
        pytest.param(OSError(113, "No route to host"), ConnectFailed, id="oserror"),
    ],
)
def test_connect_table(exc: BaseException, expected: type[AnyURLError]) -> None:
    assert map_error(CONNECT_ERRORS, exc) is expected


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        pytest.param(anyio.ClosedResourceError(), StreamClosed, id="closed-by-us"),
        pytest.param(anyio.BrokenResourceError(), ConnectionLost, id="broken"),
        pytest.param(ConnectionResetError(104, "Connection reset by peer"), ConnectionLost,
                     id="reset"),
        pytest.param(BrokenPipeError(32, "Broken pipe"), ConnectionLost, id="pipe"),
        pytest.param(ssl.SSLError(1, "bad record mac"), ConnectionLost, id="tls-record"),
        pytest.param(TimeoutError(), TransferTimeout, id="timeout"),
        pytest.param(OSError(5, "I/O error"), ConnectionLost, id="oserror"),
    ],
)
def test_stream_table(exc: BaseException, expected: type[AnyURLError]) -> None:
    assert map_error(STREAM_ERRORS, exc) is expected
    if expected is not TransferTimeout:
        error = _stream_error(exc, URL, "the control connection", "while receiving")
        assert type(error) is expected
        assert "s3cret" not in str(error) and "ftp://joe:****@ftp.example" in str(error)


def test_no_row_for_exceptions_that_are_not_the_networks() -> None:
    assert map_error(STREAM_ERRORS, ValueError("a bug")) is None
    assert map_error(CONNECT_ERRORS, KeyError("a bug")) is None


@pytest.mark.parametrize(
    ("exc", "expected", "words"),
    [
        pytest.param(ssl.SSLCertVerificationError(1, "self-signed"), TLSCertificateError,
                     "not accepted", id="certificate"),
        pytest.param(anyio.EndOfStream(), TLSHandshakeFailed, "speak TLS", id="plain-port"),
        pytest.param(ssl.SSLError(1, "wrong version number"), TLSHandshakeFailed,
                     "wrong version", id="version"),
    ],
)
def test_tls_failures_name_the_url_and_are_curls_codes(
    exc: BaseException, expected: type[AnyURLError], words: str
) -> None:
    error = _tls_error(exc, "ftp.example:990", URL)
    assert type(error) is expected and words in str(error)
    assert "s3cret" not in str(error)
    assert error.exit_code == (60 if expected is TLSCertificateError else 35)


def test_closed_is_not_broken_for_retries() -> None:
    assert not is_transient(StreamClosed("used after close"))
    assert is_transient(ConnectionLost("reset"))
    assert not is_transient(TLSHandshakeFailed("no TLS"))
    assert not is_transient(TLSCertificateError("bad certificate"))
