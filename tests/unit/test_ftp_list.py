"""The ``LIST`` parser (issue 30): what real servers write, read as wget and curl read it.

The first two listings were captured from the vsftpd and pure-ftpd peers (``LIST -a`` of
a directory with a dotfile, a hidden directory, links to a file, to a directory, to
nothing, a name with two spaces and a FIFO); the others are the forms wget's
``src/ftp-ls.c`` and curl's ``lib/ftplistparser.c`` (and curl's test server,
``tests/ftpserver.pl``) document for ProFTPD and other Unix servers and for IIS.
"""

from __future__ import annotations

import datetime

import pytest

from anyurl.protocols.ftp import ListEntry, parse_list, read_list

#: The day the captures were listed; a ``Mon DD HH:MM`` line is dated from it.
NOW = datetime.datetime(2026, 11, 29, 12, 0, tzinfo=datetime.UTC).timestamp()


def utc(*when: int) -> float:
    return datetime.datetime(*when, tzinfo=datetime.UTC).timestamp()


VSFTPD = (
    b"drwxr-xr-x    4 0        0            4096 Nov 28 22:00 .\r\n"
    b"drwxr-xr-x    6 0        0            4096 Nov 28 22:00 ..\r\n"
    b"-rw-r--r--    1 0        0               4 Nov 28 22:00 .dotfile\r\n"
    b"drwxr-xr-x    2 0        0            4096 Nov 28 22:00 .hiddendir\r\n"
    b"lrwxrwxrwx    1 0        0               7 Nov 28 22:00 dangling -> missing\r\n"
    b"lrwxrwxrwx    1 0        0               3 Nov 28 22:00 dirlink -> sub\r\n"
    b"prw-r--r--    1 0        0               0 Nov 28 22:00 fifo\r\n"
    b"lrwxrwxrwx    1 0        0               9 Feb 03  2021 filelink -> plain.txt\r\n"
    b"lrwxrwxrwx    1 0        0              32 Nov 28 22:00 link with space -> "
    b"../capture/name with  spaces.txt\r\n"
    b"-rw-r--r--    1 0        0               3 Nov 28 22:00 name with  spaces.txt\r\n"
    b"-rw-r--r--    1 0        0               3 Jan 02  2020 plain.txt\r\n"
    b"drwxr-xr-x    2 0        0            4096 Nov 28 22:00 sub\r\n"
)

PURE_FTPD = (
    b"drwxr-xr-x    4 0          0                4096 Nov 28 22:00 .\r\n"
    b"drwxr-xr-x    6 0          0                4096 Nov 28 22:00 ..\r\n"
    b"-rw-r--r--    1 0          0                   4 Nov 28 22:00 .dotfile\r\n"
    b"drwxr-xr-x    2 0          0                4096 Nov 28 22:00 .hiddendir\r\n"
    b"lrwxrwxrwx    1 0          0                   7 Nov 28 22:00 dangling -> missing\r\n"
    b"lrwxrwxrwx    1 0          0                   3 Nov 28 22:00 dirlink -> sub\r\n"
    b"lrwxrwxrwx    1 0          0                   9 Feb  3  2021 filelink -> plain.txt\r\n"
    b"lrwxrwxrwx    1 0          0                  32 Nov 28 22:00 link with space -> "
    b"../capture/name with  spaces.txt\r\n"
    b"-rw-r--r--    1 0          0                   3 Nov 28 22:00 name with  spaces.txt\r\n"
    b"-rw-r--r--    1 0          0                   3 Jan  2  2020 plain.txt\r\n"
    b"drwxr-xr-x    2 0          0                4096 Nov 28 22:00 sub\r\n"
)

CAPTURED = [
    ListEntry(".dotfile", False, size=4, modified=utc(2026, 11, 28, 22, 0)),
    ListEntry(".hiddendir", True, size=4096, modified=utc(2026, 11, 28, 22, 0)),
    ListEntry("dangling", False, size=7, modified=utc(2026, 11, 28, 22, 0), target="missing"),
    ListEntry("dirlink", False, size=3, modified=utc(2026, 11, 28, 22, 0), target="sub"),
    ListEntry("filelink", False, size=9, modified=utc(2021, 2, 3), target="plain.txt"),
    ListEntry("link with space", False, size=32, modified=utc(2026, 11, 28, 22, 0),
              target="../capture/name with  spaces.txt"),
    ListEntry("name with  spaces.txt", False, size=3, modified=utc(2026, 11, 28, 22, 0)),
    ListEntry("plain.txt", False, size=3, modified=utc(2020, 1, 2)),
    ListEntry("sub", True, size=4096, modified=utc(2026, 11, 28, 22, 0)),
]


@pytest.mark.parametrize("body", [VSFTPD, PURE_FTPD], ids=["vsftpd", "pure-ftpd"])
def test_captured_listings(body: bytes) -> None:
    """Dotfiles listed, ``.``/``..`` and the FIFO left out, link targets kept (spaces
    in both the name and the target), two spaces inside a name kept, year or time."""
    assert read_list(body, now=NOW) == CAPTURED
    # the same bytes one at a time are the same listing (LF alone ends lines too)
    assert read_list(body.replace(b"\r\n", b"\n"), now=NOW) == CAPTURED


def test_a_time_without_a_year_is_this_year_or_last_as_wget_says() -> None:
    body = (b"-rw-r--r--   1 ftp      ftp          10 Nov 28 22:00 this-year\r\n"
            b"-rw-r--r--   1 ftp      ftp          10 Dec  1 09:05 last-year\r\n")
    entries = read_list(body, now=NOW)
    assert entries is not None
    assert [e.modified for e in entries] == [utc(2026, 11, 28, 22, 0),
                                             utc(2025, 12, 1, 9, 5)]


def test_other_unix_forms() -> None:
    """ProFTPD's columns, curl's test server (one-digit hours, set-id bits, a ``.NeXT``
    directory), no group column, an ACL mark, devices and a ``total`` line."""
    body = (
        b"total 24\r\n"
        b"drwxr-xr-x   2 ftp      ftp          4096 Mar 14  2019 pub\r\n"           # ProFTPD
        b"-rw-r--r--   1 ftp      ftp       1048576 Jan  1 12:00 big.iso\r\n"
        b"drwxrwxrwx  4 ftp-default ftp-default  4096 Jan 23  2:05 .NeXT\r\n"      # curl
        b"d--S--S--t  4 ftp-default ftp-default  4096 May  4  4:31 chmod4\r\n"
        b"lrwxrwxrwx  1 ftp-default ftp-default     0 Jan  6  4:45 link_absolute -> "
        b"/data/ftp/file.txt\r\n"
        b"-rw-r--r-- 1 owner 1234 Jul  4  2001 no group\r\n"
        b"-rw-r--r--+ 1 u g 5 Jul  4  2001 acl\r\n"
        b"crw-rw-rw-   1 root     root       1,   3 Jul  4  2001 null\r\n"
        b"brw-rw----   1 root     disk       8,   0 Jul  4  2001 sda\r\n"
        b"srwxrwxrwx   1 root     root          0 Jul  4  2001 socket\r\n"
    )
    entries = read_list(body, now=NOW)
    assert entries is not None
    assert [(e.name, e.is_directory, e.size, e.target) for e in entries] == [
        ("pub", True, 4096, None), ("big.iso", False, 1048576, None),
        (".NeXT", True, 4096, None), ("chmod4", True, 4096, None),
        ("link_absolute", False, 0, "/data/ftp/file.txt"),
        ("no group", False, 1234, None), ("acl", False, 5, None)]
    assert entries[2].modified == utc(2026, 1, 23, 2, 5)
    assert entries[5].modified == utc(2001, 7, 4)


def test_dos_iis_form() -> None:
    """IIS's DOS form (and curl's test server's): two- and four-digit years, AM/PM,
    ``<DIR>``, a name with spaces."""
    body = (b"01-16-02  11:14AM       <DIR>          epsgroup\r\n"
            b"10-19-20  03:19PM               1234 file name.txt\r\n"
            b"04-27-10  12:01AM                  0 empty_file.dat\r\n"
            b"11-01-2008  12:30PM     <DIR>          DOS\r\n"
            b"01-23-98  02:05AM                 38 old\r\n")
    entries = read_list(body, now=NOW)
    assert entries == [
        ListEntry("epsgroup", True, modified=utc(2002, 1, 16, 11, 14)),
        ListEntry("file name.txt", False, size=1234, modified=utc(2020, 10, 19, 15, 19)),
        ListEntry("empty_file.dat", False, size=0, modified=utc(2010, 4, 27, 0, 1)),
        ListEntry("DOS", True, modified=utc(2008, 11, 1, 12, 30)),
        ListEntry("old", False, size=38, modified=utc(1998, 1, 23, 2, 5)),
    ]


def test_a_format_not_read_is_none_and_an_empty_listing_is_empty() -> None:
    """None lets the caller ask NLST for the names; a line of an unknown form among
    known ones is skipped; no date (``Feb 30``) leaves the time unknown, not the entry."""
    assert read_list(b"+i8388621.29609,m824255902,/,\tdev\r\n") is None  # EPLF
    assert parse_list(b"+i8388621.29609,m824255902,/,\tdev\r\n") == []
    assert read_list(b"") == [] and read_list(b"total 0\r\n\r\n") == []
    mixed = (b"-rw-r--r--   1 u g 5 Feb 30  2001 no-such-day\r\n"
             b"this line is of no form\r\n")
    assert read_list(mixed) == [ListEntry("no-such-day", False, size=5)]


def test_names_that_are_no_entries() -> None:
    body = (b"drwxr-xr-x 2 u g 4096 Jan  1  2020 .\r\n"
            b"drwxr-xr-x 2 u g 4096 Jan  1  2020 ..\r\n"
            b"-rw-r--r-- 1 u g 1 Jan  1  2020 nul\x00byte\r\n"
            b"-rw-r--r-- 1 u g 1 Jan  1  2020 Jan 1 2020 x\r\n")
    # a name that looks like a date is a name: the first date is the line's
    assert [e.name for e in parse_list(body)] == ["Jan 1 2020 x"]


def test_a_size_of_other_digits_is_no_size() -> None:
    body = "-rw-r--r-- 1 u g ١٢ Jan  1  2020 arabic\r\n".encode()
    assert read_list(body) == [ListEntry("arabic", False, modified=utc(2020, 1, 1))]


def test_a_listing_read_to_be_known_is_not_read_again_for_its_links(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The handler reads a LIST body to know it can (else NLST); a mirror then asks for
    its links, of the same bytes (read back from the saved file): parsed once."""
    from anyurl.resource import ResourceInfo
    from anyurl.schemes.ftp import listings
    from anyurl.url import parse

    calls: list[bytes] = []

    def counted(body: bytes, *, now: float | None = None) -> list[ListEntry] | None:
        calls.append(body)
        return read_list(body, now=now)

    monkeypatch.setattr(listings, "read_list", counted)
    monkeypatch.setattr(listings, "_read", {})
    monkeypatch.setattr(listings, "_read_bytes", [0])
    entries = listings._read_once(VSFTPD)
    assert entries == read_list(VSFTPD)
    info = ResourceInfo(url=parse("ftp://h/capture/"), kind="directory",
                        extra={"command": "LIST"})
    links = listings.listing_links(info, bytes(bytearray(VSFTPD)))  # equal, not the same
    assert len(calls) == 1
    assert [link.url for link in links][:2] == ["ftp://h/capture/.dotfile",
                                                "ftp://h/capture/.hiddendir/"]
    assert listings._read == {}  # read twice: not kept for a third time
    entries.clear()  # a caller's list is its own
    assert listings._read_once(VSFTPD) == read_list(VSFTPD)
    assert len(calls) == 2
    assert listings._read_once(b"?? not a listing\r\n") is None  # None is kept too
    assert listings._read_once(b"?? not a listing\r\n") is None
    assert len(calls) == 3
    for n in range(listings.READ_KEPT + 4):  # at most READ_KEPT bodies are kept
        listings._read_once(b"-rw-r--r-- 1 0 0 3 Jan 02  2020 f%d\r\n" % n)
    assert len(listings._read) == listings.READ_KEPT
    monkeypatch.setattr(listings, "READ_KEPT_BYTES", 4 * len(VSFTPD))
    for n in range(8):  # ... and at most READ_KEPT_BYTES of them
        listings._read_once(VSFTPD + b"-rw-r--r-- 1 0 0 3 Jan 02  2020 f%d\r\n" % n)
    assert len(listings._read) <= 4
    assert listings._read_bytes[0] == sum(map(len, listings._read)) <= 4 * len(VSFTPD)
