"""``anyurl serve --warc`` replays an archived web site as the site (issue 30).

A small styled site (tests/integration/site_fixture.py) is served by nginx, archived by
``anyurl mirror --warc``, and nginx is stopped. The replay must then show the site's own
page, not a rendering of its source: every URL it names leads into the replay, the
stylesheet, the one it imports, the images and the script are served from the archive
with their archived bytes and content types. A headless chromium, whose every request
but the gateway's goes to a proxy that is not there, shows the page styled, its image
decoded and its script run, and follows a link inside the replay.
"""

from __future__ import annotations

import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.site_fixture import (
    APP_JS,
    BACKGROUND,
    LOGO,
    SITE_CSS,
    THEME_CSS,
    Site,
    mirrored_site,
)
from tests.integration.test_serve import Served, start_serve, stop
from tests.integration.test_serve_browser import CHROMEDRIVER, CHROMIUM

pytestmark = [pytest.mark.integration]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from mirrored_site(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="module")
def replay(site: Site) -> Iterator[Served]:
    served = start_serve("--warc", str(site.warc))
    try:
        yield served
    finally:
        stop(served.proc)


def _stamp(site: Site) -> str:
    """The capture time of the site's index page, as the CDXJ index says."""
    index = site.warc.with_name("site.cdxj").read_text()
    m = re.search(r"^\S+ (\d{14}) .*/index\.html\"", index, re.MULTILINE)
    assert m, index
    return m.group(1)


def _refs(page: str) -> list[str]:
    """The URLs of a page's attributes, its comments left out."""
    return re.findall(r'(?:href|src|srcset)="([^"]*)"',
                      re.sub(r"<!--.*?-->", "", page, flags=re.DOTALL))


def test_the_page_is_the_sites_own_in_a_frame_under_the_banner(
        site: Site, replay: Served) -> None:
    stamp = _stamp(site)
    status, headers, top = replay.request("/" + site.url("index.html"))
    assert status == 200
    text = top.decode()
    assert 'id="banner"' in text and f"captured <span id=\"captured\">{stamp}" in text
    assert f'<iframe id="replay" name="replay" src="/_replay/{stamp}/{site.url("index.html")}"' \
        in text
    assert "frame-src 'self'" in headers["content-security-policy"]

    status, headers, body = replay.request(f"/_replay/{stamp}/{site.url('index.html')}")
    assert status == 200 and headers["content-type"] == "text/html"
    policy = headers["content-security-policy"]
    assert "default-src 'self' data: blob: 'unsafe-inline' 'unsafe-eval'" in policy
    page = body.decode()
    assert "<pre>" not in page and "banner" not in page
    assert page.startswith('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">')
    assert "<h1 id=\"title\">Caf\u00e9 &amp; friends</h1>" in page
    assert '<!-- a comment naming <img src="img/never.png"> is left as it is -->' in page
    prefix = f"/_replay/{stamp}/{site.base}"
    assert _refs(page) == [
        prefix + "css/site.css", prefix + "js/app.js", prefix + "img/logo.png",
        f"{prefix}img/logo.png 1x", prefix + "page2.html",
        f"/_replay/{stamp}/http://archived.invalid/never.html", "#title"]


def test_stylesheets_images_and_script_come_from_the_archive(site: Site, replay: Served) -> None:
    stamp = _stamp(site)
    prefix = f"/_replay/{stamp}/{site.base}"
    status, headers, css = replay.request(prefix + "css/site.css")
    assert status == 200 and headers["content-type"] == "text/css"
    assert css == SITE_CSS.replace(b'"theme.css"', f'"{prefix}css/theme.css"'.encode()).replace(
        b"url(../img/bg.png)", f'url("{prefix}img/bg.png")'.encode())
    for path, blob, ctype in [("css/theme.css", THEME_CSS, "text/css"),
                              ("img/logo.png", LOGO, "image/png"),
                              ("img/bg.png", BACKGROUND, "image/png"),
                              ("js/app.js", APP_JS, "application/javascript")]:
        status, headers, body = replay.request(prefix + path)
        assert (status, headers["content-type"], body) == (200, ctype, blob), path
        assert "attachment" not in headers.get("content-disposition", "")
    # The raw bytes of the stylesheet are the archived ones, untouched.
    assert replay.request("/_raw/" + site.url("css/site.css"))[2] == SITE_CSS


def test_a_url_not_archived_is_a_404_of_the_replay(site: Site, replay: Served) -> None:
    status, headers, body = replay.request(
        f"/_replay/{_stamp(site)}/http://archived.invalid/never.html")
    assert status == 404 and b"not in the archive" in body
    assert "frame-ancestors 'self'" in headers["content-security-policy"]


def test_a_page_asked_at_another_time_goes_to_its_capture(site: Site, replay: Served) -> None:
    stamp = _stamp(site)
    status, headers, _ = replay.request(f"/_replay/1999/{site.url('page2.html')}")
    assert status == 302
    assert re.fullmatch(rf"/_replay/\d{{14}}/{re.escape(site.url('page2.html'))}",
                        headers["location"])
    # an image is served where it is asked for, from its nearest capture
    status, _, body = replay.request(f"/_replay/{stamp[:4]}/{site.url('img/logo.png')}")
    assert (status, body) == (200, LOGO)


# -- in a browser, with every other host unreachable ------------------------------------


class _Live(http.server.BaseHTTPRequestHandler):
    """A live server the browser must not reach."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<title>LIVE</title>reached the live web")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def live_server() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Live)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def _offline_browser(gateway_port: int, downloads: Path) -> Any:
    """Chromium whose every request goes to a proxy that is not there (127.0.0.1:1),
    loopback included (``<-loopback>``), except the gateway's address."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1100,800", "--proxy-server=http://127.0.0.1:1",
                f"--proxy-bypass-list=<-loopback>;127.0.0.1:{gateway_port}",
                "--disable-background-networking", "--no-first-run"):
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads)})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    return driver


def _in_frame(driver: Any, script: str) -> Any:
    from selenium.webdriver.common.by import By

    driver.switch_to.default_content()
    driver.switch_to.frame(driver.find_element(By.ID, "replay"))
    try:
        return driver.execute_script(script)
    finally:
        driver.switch_to.default_content()


_LOADED = """
const done = () => document.readyState === 'complete'
  && document.getElementById('logo') && document.getElementById('logo').complete;
return done();
"""

_FACTS = """
const sheet = document.styleSheets[0];
const imported = [...sheet.cssRules].find(r => r instanceof CSSImportRule);
return {
  title: document.getElementById('title').textContent,
  location: location.pathname,
  sheets: document.styleSheets.length,
  importedRules: imported && imported.styleSheet ? imported.styleSheet.cssRules.length : -1,
  color: getComputedStyle(document.body).color,
  background: getComputedStyle(document.getElementById('hero')).backgroundImage,
  logo: [document.getElementById('logo').naturalWidth,
         document.getElementById('logo').naturalHeight],
  script: document.documentElement.getAttribute('data-script'),
  banner: document.getElementById('banner'),
  resources: performance.getEntriesByType('resource').map(e => [e.name, e.decodedBodySize]),
};
"""


def test_chromium_shows_the_archived_site_with_the_network_blocked(
        site: Site, tmp_path: Path, live_server: int) -> None:
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    served = start_serve("--warc", str(site.warc))
    driver = _offline_browser(served.port, tmp_path)
    gateway = f"http://127.0.0.1:{served.port}"
    try:
        # The block is real: another loopback server is not reached.
        with pytest.raises(WebDriverException, match="ERR_PROXY_CONNECTION_FAILED"):
            driver.get(f"http://127.0.0.1:{live_server}/")
        driver.get(f"{gateway}/?anyurl_token={served.token}")
        driver.get(f"{gateway}/{site.url('index.html')}")
        assert "captured" in driver.find_element(By.ID, "banner").text
        WebDriverWait(driver, 30).until(lambda d: _in_frame(d, _LOADED))
        facts = _in_frame(driver, _FACTS)
        stamp = _stamp(site)
        assert facts["title"] == "Caf\u00e9 & friends"  # the page's own DOM
        assert facts["location"] == f"/_replay/{stamp}/{site.url('index.html')}"
        assert facts["banner"] is None
        assert facts["sheets"] == 1 and facts["importedRules"] == 1
        assert facts["color"] == "rgb(1, 2, 3)"  # the @import-ed stylesheet applies
        assert facts["logo"] == [7, 5]
        assert facts["script"] == "ran"
        loaded = dict(facts["resources"])
        prefix = f"{gateway}/_replay/{stamp}/{site.base}"
        assert set(loaded) == {prefix + p for p in (
            "css/site.css", "css/theme.css", "img/logo.png", "img/bg.png", "js/app.js")}
        assert loaded[prefix + "img/bg.png"] == len(BACKGROUND)
        assert f'url("{prefix}img/bg.png")' == facts["background"]
        # A link followed inside the replay: the banner and the address follow it.
        driver.switch_to.frame(driver.find_element(By.ID, "replay"))
        driver.find_element(By.ID, "second").click()
        driver.switch_to.default_content()
        WebDriverWait(driver, 30).until(
            lambda d: d.find_element(By.ID, "url").text.endswith("/page2.html"))
        assert driver.current_url == f"{gateway}/{site.url('page2.html')}"
        assert _in_frame(driver, "return document.getElementById('back').textContent") == "back"
    finally:
        driver.quit()
        stop(served.proc)
