"""The raters' page of `wag eval human serve` (DESIGN.md §10 "Human evaluation") in a real headless
Chromium driven by selenium: the page loads, a rater ranks two queries — one with the keyboard, one
with the mouse — the rankings are in the evaluation database, and a reload resumes at query 3.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them); skipped with that
message when they or selenium are missing."""

from __future__ import annotations

import shutil
import threading

import duckdb
import pytest
from human_fixtures import answer_text, conditions, make_store

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
if not (CHROMIUM and DRIVER):
    pytest.skip("chromium / chromedriver not installed (apt-get install -y chromium chromium-driver; "
                ".ci/run installs them)", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install -e '.[test]')")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture
def served(tmp_path):
    from wag_cli.eval.human_sample import draw_sample
    from wag_cli.eval.human_server import make_server

    path = tmp_path / "eval.duckdb"
    con = make_store(path)
    draw_sample(con, n=3, seed=2, experiments=["main"])
    server = make_server(con, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, path, con
    server.shutdown()
    server.server_close()
    con.close()


@pytest.fixture
def browser(tmp_path):
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        opts.add_argument(arg)
    from selenium.webdriver.chrome.service import Service

    driver = webdriver.Chrome(options=opts, service=Service(executable_path=DRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def _wait_text(driver, element_id, text):
    WebDriverWait(driver, 15).until(EC.text_to_be_present_in_element((By.ID, element_id), text))


def _shown_conditions(driver) -> list[str]:
    """The conditions behind the cards, in the order shown, recovered from the answer texts."""
    qid = driver.find_element(By.ID, "question").text.rsplit(" ", 1)[1].rstrip("?")
    by_text = {answer_text("main", qid, c).split("\n")[0]: c for c in conditions("main")}
    cards = driver.find_elements(By.CSS_SELECTOR, ".answer")
    return [by_text[card.find_element(By.CSS_SELECTOR, ".text").text.split("\n")[0]] for card in cards]


def test_rank_two_queries_with_keyboard_and_mouse_then_resume(served, browser):
    server, path, con = served
    k = len(conditions("main"))
    browser.get(server.url)
    # no rater yet: the page asks for one
    field = WebDriverWait(browser, 15).until(EC.visibility_of_element_located((By.ID, "rater-input")))
    field.send_keys("alice", Keys.ENTER)
    _wait_text(browser, "progress", f"1 of 3")
    assert "rater=alice" in browser.current_url
    q1 = browser.find_element(By.ID, "question").text
    shown1 = _shown_conditions(browser)
    assert sorted(shown1) == sorted(conditions("main"))
    assert not any(c in browser.find_element(By.ID, "answers").text.split() for c in conditions("main"))

    # query 1 by keyboard: keys k, k-1, ..., 1 (the last answer's rank is filled in), then Enter
    body = browser.find_element(By.TAG_NAME, "body")
    for key in range(k, 1, -1):
        body.send_keys(str(key))
    # and Clarity on the side: ArrowDown x5 reaches Clarity; keys 1..k
    body.send_keys(Keys.ARROW_DOWN * 5)
    assert "current" in browser.find_element(By.CSS_SELECTOR, '[data-criterion="Clarity"]').get_attribute("class")
    for key in range(1, k):
        body.send_keys(str(key))
    body.send_keys(Keys.ENTER)
    _wait_text(browser, "progress", "2 of 3")
    assert browser.find_element(By.ID, "question").text != q1

    # query 2 by mouse: click the cards in the order shown, then the submit button
    shown2 = _shown_conditions(browser)
    # an incomplete Overall is refused in the page
    browser.find_element(By.ID, "submit").click()
    _wait_text(browser, "status", "Overall is required")
    cards = browser.find_elements(By.CSS_SELECTOR, ".answer")
    for card in cards[:-1]:
        card.click()
    browser.find_element(By.ID, "submit").click()
    _wait_text(browser, "progress", "3 of 3")

    # the rankings are in the database
    with server.lock:
        rows = con.execute("select query_id, criterion, condition, rank, source from eval_human_rankings"
                           " where rater = 'alice' order by query_id, criterion, rank").fetchall()
        order = [q for q, in con.execute("select query_id from eval_human_sample where experiment = 'main'"
                                         " order by sample_order").fetchall()]
    got = {}
    for qid, crit, cond, rank, source in rows:
        assert source == "web"
        got.setdefault((qid, crit), []).append((rank, cond))
    assert got[(order[0], "Overall")] == list(enumerate(shown1[::-1], start=1))     # pressed k .. 1
    assert got[(order[0], "Clarity")] == list(enumerate(shown1, start=1))           # pressed 1 .. k
    assert got[(order[1], "Overall")] == list(enumerate(shown2, start=1))           # clicked in order
    assert set(got) == {(order[0], "Overall"), (order[0], "Clarity"), (order[1], "Overall")}

    # a reload resumes at query 3 (the rater id is kept in the address), answers in the same order
    shown3 = _shown_conditions(browser)
    browser.refresh()
    _wait_text(browser, "progress", "3 of 3")
    assert f"before {order[2]}?" in browser.find_element(By.ID, "question").text
    assert _shown_conditions(browser) == shown3


def test_server_refuses_ties_and_non_json(served):
    import json
    import urllib.error
    import urllib.request

    server, _path, con = served
    nxt = json.loads(urllib.request.urlopen(server.url + "api/next?rater=bob", timeout=10).read())
    item = nxt["item"]
    labels = [a["label"] for a in item["answers"]]
    body = {"rater": "bob", "experiment": item["experiment"], "query_id": item["query_id"],
            "rankings": {"Overall": [labels[0]] * len(labels)}}
    req = urllib.request.Request(server.url + "api/rank", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=10)
    assert err.value.code == 400 and "more than once" in json.loads(err.value.read())["error"]
    form = urllib.request.Request(server.url + "api/rank", b"a=1", {"Content-Type": "application/x-www-form-urlencoded"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(form, timeout=10)
    assert err.value.code == 415
    with server.lock:
        assert con.execute("select count(*) from eval_human_rankings").fetchone()[0] == 0
