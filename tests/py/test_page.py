"""The page `grundy serve` shows, in a real headless browser (Chromium and its driver from
Debian's packages, which scripts/browser.sh installs; selenium drives them): the charts
render (their bars are SVG rectangles in the DOM, one per value), and following a move in the
position explorer shows the position it leads to, with the values the API gives.

The binary is $GRUNDY, built with the serve feature; $CHROMEDRIVER names the driver
(default /usr/bin/chromedriver). $GRUNDY_SCREENSHOT, when set, is where a screenshot of the
page goes (scripts/serve-bench.sh sets it).
"""

import json
import os
import re
import subprocess
import urllib.request

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

GRUNDY = os.environ.get("GRUNDY", "target/release/grundy")
DRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`grundy serve` on a free loopback port, over a generated game of 300 nodes."""
    folder = tmp_path_factory.mktemp("page")
    game = folder / "game.txt"
    with open(game, "wb") as out:
        subprocess.run(
            [GRUNDY, "generate", "--nodes", "300", "--edges", "900", "--queries", "5",
             "--seed", "30"],
            stdout=out, check=True,
        )
    process = subprocess.Popen(
        [GRUNDY, "serve", str(game), "--listen", "127.0.0.1:0"],
        stderr=subprocess.PIPE, text=True,
    )
    line = process.stderr.readline()
    found = re.search(r"on (http://[0-9.:]+/)", line)
    assert found, line
    yield found.group(1)
    process.terminate()
    assert process.wait(timeout=30) == 0


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(DRIVER):
        pytest.fail(f"no Chromium driver at {DRIVER}: run scripts/browser.sh")
    options = webdriver.ChromeOptions()
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1000,1400"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(DRIVER), options=options)
    yield driver
    driver.quit()


def api(url):
    with urllib.request.urlopen(url) as response:
        return json.load(response)


def test_the_charts_render_one_bar_per_value(server, browser):
    stats = api(server + "v1/stats")["total"]
    browser.get(server)
    for chart, histogram in [("grundy", "grundy_histogram"), ("level", "level_histogram"),
                             ("out-degree", "out_degree_histogram")]:
        bars = browser.find_elements(By.CSS_SELECTOR, f"#chart-{chart} rect.bar")
        assert len(bars) == min(len(stats[histogram]), 64), chart
        # Rendered: the tallest bar has a height on the screen.
        assert max(bar.rect["height"] for bar in bars) > 10, chart


def test_following_a_move_shows_the_next_position(server, browser):
    node = next(v for v in range(300) if api(server + f"v1/position/1/{v}")["out_degree"] > 1)
    browser.get(server + f"#1/{node}")
    wait = WebDriverWait(browser, 20)
    wait.until(lambda b: b.find_element(By.ID, "position").get_attribute("data-node") == str(node))
    start = api(server + f"v1/position/1/{node}")
    links = browser.find_elements(By.CSS_SELECTOR, "#moves a.move")
    assert [int(a.get_attribute("data-to")) for a in links] == [m["to"] for m in start["moves"]]
    target = start["moves"][0]["to"]
    links[0].click()
    wait.until(lambda b: b.find_element(By.ID, "position").get_attribute("data-node") == str(target))
    shown = browser.find_element(By.ID, "position").text
    after = api(server + f"v1/position/1/{target}")
    value = "infinite" if after["grundy"] is None else str(after["grundy"])
    assert f"node {target}: Grundy value {value}" in shown, shown
    assert after["outcome"] in shown
    assert browser.current_url.endswith(f"#1/{target}")
    shot = os.environ.get("GRUNDY_SCREENSHOT")
    if shot:
        browser.get(server + f"#1/{node}")
        wait.until(lambda b: b.find_element(By.ID, "position").get_attribute("data-node") == str(node))
        browser.save_screenshot(shot)
