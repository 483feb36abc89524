"""A real browser walks ``anyurl serve``: Debian's chromium driven by Selenium.

One browser session (CI time is short) walks a Gopher hole, an FTP tree, a newsgroup and a
WAIS search through the live gateway, following links and downloading files whose bytes
are checked; then the same walk over the WARC file ``anyurl mirror`` wrote, served by a
gateway in a network namespace of its own (``unshare -n``: the network is off), which the
browser reaches through a socat bridge over a Unix socket. Browsers cannot be downloaded
here: Selenium is pointed at /usr/bin/chromium and /usr/bin/chromedriver (the packages
``chromium`` and ``chromium-driver``, installed by scripts/install-peers.sh).

``ANYURL_SERVE_SCREENSHOT=FILE`` saves a screenshot of the live Gopher menu there (the one
in docs/ was taken so).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from anyurl.schemes.wais.loopback import build_documents
from tests.integration.test_serve import (
    CRLF_HELLO,
    Served,
    _env,
    mirror_to_warc,
    peer_urls,
    start_serve,
    stop,
)
from tests.peers import data

pytestmark = [pytest.mark.integration]

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Path]]:
    for program in (CHROMIUM, CHROMEDRIVER):
        assert os.access(program, os.X_OK), (
            f"{program} is missing: apt-get install -y chromium chromium-driver "
            "(scripts/install-peers.sh installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    downloads = tmp_path_factory.mktemp("downloads")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--disable-gpu", "--window-size=1100,800", "--no-proxy-server"):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {
        "download.default_directory": str(downloads),
        "download.prompt_for_download": False,
        "safebrowsing.enabled": False})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver, downloads
    finally:
        driver.quit()


def downloaded(folder: Path, name: str | None, timeout: float = 30) -> bytes:
    """The bytes of ``name`` (None: the one file, whatever its name) once the browser
    has finished saving it; the folder is emptied for the next download."""
    deadline = time.monotonic() + timeout
    seen: tuple[Path, int] | None = None
    since = 0.0
    while time.monotonic() < deadline:
        done = [p for p in folder.iterdir() if not p.name.endswith(".crdownload")]
        busy = [p for p in folder.iterdir() if p.name.endswith(".crdownload")]
        target = folder / name if name else (done[0] if len(done) == 1 else folder / "?")
        if target.is_file() and not busy:
            # Chrome may create the final name empty before its .crdownload appears:
            # the download is done when the file has stood unchanged for a moment.
            now = (target, target.stat().st_size)
            if now != seen:
                seen, since = now, time.monotonic()
            elif time.monotonic() - since >= (0.5 if now[1] else 2.0):
                blob = target.read_bytes()
                for leftover in folder.iterdir():
                    leftover.unlink()
                return blob
        else:
            seen = None
        time.sleep(0.1)
    raise AssertionError(f"{name} was not downloaded; the folder holds "
                         f"{sorted(p.name for p in folder.iterdir())}")


def follow(driver: Any, href_end: str, *, page: bool = True) -> None:
    """Click the first link whose target ends with ``href_end``; when it leads to a
    ``page`` (not a download), wait for that page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    for link in driver.find_elements(By.TAG_NAME, "a"):
        if (link.get_attribute("href") or "").endswith(href_end):
            before = driver.find_element(By.TAG_NAME, "html")
            link.click()
            if page:
                WebDriverWait(driver, 30).until(expected_conditions.staleness_of(before))
            return
    raise AssertionError(f"no link to ...{href_end} on {driver.current_url}")


def go(driver: Any, url: str) -> None:
    """Type ``url`` into the gateway's bar and submit it, as a user does."""
    from selenium.webdriver.common.by import By

    bar = driver.find_element(By.NAME, "url")
    bar.clear()
    bar.send_keys(url)
    submitted(driver, bar)


def submitted(driver: Any, field: Any) -> None:
    """Submit ``field``'s form and wait for the next page (submit returns before it)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    page = driver.find_element(By.TAG_NAME, "html")
    field.submit()
    WebDriverWait(driver, 30).until(expected_conditions.staleness_of(page))


def walk(driver: Any, downloads: Path, base: str, peers: Any, *, replay: bool) -> None:
    """Gopher, FTP, news and WAIS through the gateway at ``base``, as a user clicks."""
    from selenium.webdriver.common.by import By

    urls = peer_urls(peers)
    gopher = peers["gophernicus"].hostport
    page = driver.find_element(By.TAG_NAME, "body").text
    # Gopher: the menu, a submenu, a text item downloaded.
    go(driver, urls["gopher"])
    assert "(DIR)  nested" in driver.find_element(By.TAG_NAME, "pre").text
    if replay:
        assert "captured" in driver.find_element(By.ID, "banner").text
    screenshot = os.environ.get("ANYURL_SERVE_SCREENSHOT")
    if screenshot and not replay:
        driver.save_screenshot(screenshot)
    follow(driver, f"/gopher://{gopher}/1/pub/nested/")
    assert "deeper" in driver.find_element(By.TAG_NAME, "pre").text
    driver.back()
    # A text item is shown to read, as Lynx and every Gopher client show it (issue 31);
    # its exact bytes stay at /_raw/.
    follow(driver, f"/gopher://{gopher}/0/pub/readme.txt")
    shown = driver.find_element(By.TAG_NAME, "pre").text
    assert data.expected_bytes("pub/readme.txt").decode().strip() in shown
    # FTP: the tree, a file with a ';' in its name.
    go(driver, urls["ftp"])
    follow(driver, "/pub/semi%3Bcolon.txt", page=False)
    assert downloaded(downloads, "semi;colon.txt") == data.expected_bytes("pub/semi;colon.txt")
    # News: the group, an article.
    go(driver, urls["news"])
    follow(driver, urls["news"] + "/2")
    assert "..two dots" in driver.find_element(By.TAG_NAME, "pre").text
    # WAIS: the search form (live), the result, a document.
    wais = peers["wais"]
    if replay:
        go(driver, urls["wais_search"])
    else:
        go(driver, urls["wais"])
        box = driver.find_element(By.NAME, "q")
        box.send_keys("gopher")
        submitted(driver, box)
        assert driver.current_url.endswith("/" + urls["wais_search"])
    assert "gopher.txt" in driver.find_element(By.TAG_NAME, "pre").text
    expected = {d.name: d for d in build_documents(wais.host, wais.port)}
    doc = expected["gopher.txt"]
    for link in driver.find_elements(By.TAG_NAME, "a"):
        if "gopher.txt" in (link.get_attribute("href") or ""):
            link.click()
            break
    else:
        raise AssertionError("no link to gopher.txt's document")
    # A replayed WAIS document is named from its URL (the docid), a live one by the server.
    assert downloaded(downloads, None if replay else "gopher.txt") == doc.content
    assert page is not None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_browser_walks_live_and_replayed(browser: tuple[Any, Path], peers: Any,
                                         tmp_path: Path) -> None:
    driver, downloads = browser
    assert CRLF_HELLO
    # Live, with the token: the ready URL sets the cookie, then every page is reached.
    live: Served = start_serve()
    try:
        driver.get(f"http://127.0.0.1:{live.port}/?anyurl_token={live.token}")
        assert "anyurl serve" in driver.title
        walk(driver, downloads, f"http://127.0.0.1:{live.port}", peers, replay=False)
    finally:
        stop(live.proc)
    # Replayed with the network off: the gateway in a namespace with loopback only.
    warc = mirror_to_warc(peers, tmp_path / "m")
    socat = shutil.which("socat")
    assert socat, "socat is installed with the peers (scripts/install-peers.sh)"
    bridge = tmp_path / "gateway.sock"
    outer = _free_port()
    inner = subprocess.Popen(
        ["unshare", "-n", "sh", "-c",
         f"ip link set lo up && {socat} UNIX-LISTEN:{bridge},fork TCP:127.0.0.1:8080 & "
         f"exec {sys.executable} -m anyurl serve --port 8080 --no-token "
         f"--allow-host 127.0.0.1:{outer} --warc {warc}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), start_new_session=True)
    relay = subprocess.Popen(
        [socat, f"TCP-LISTEN:{outer},bind=127.0.0.1,reuseaddr,fork", f"UNIX-CONNECT:{bridge}"],
        stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        assert inner.stdout is not None
        assert inner.stdout.readline().decode().strip() == "http://127.0.0.1:8080/"
        driver.get(f"http://127.0.0.1:{outer}/")
        assert "Replaying" in driver.page_source
        walk(driver, downloads, f"http://127.0.0.1:{outer}", peers, replay=True)
    finally:
        stop(relay)
        stop(inner)
