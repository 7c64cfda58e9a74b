#!/usr/bin/python3
"""The explorer page in a real browser: headless Chromium driven by Selenium loads the page from
a running `pythia tb serve`, plays a move by clicking it, goes back and forward, pastes a FEN,
and checks what the page shows against `pythia tb probe --json`; shows a bad FEN's error beside
the FEN box, says which piece counts the tables cover (GET /tables), and fits the board on a
400-pixel-wide phone screen as on a desktop one. With the Syzygy truth files (TRUTH_DIR/syzygy,
TRUTH_DIR/../truth5/syzygy) the server and tb probe read them too (--syzygy), and a 5-piece
position that only they answer is shown as tb probe --json --syzygy gives it; without them
that part is left out.

usage: test_explorer_browser.py PYTHIA_BINARY [TABLES_DIR [TRUTH_DIR]]

Without a folder holding KQvK and KRvK (TABLES_DIR, else $PYTHIA_TEST_TABLES) it generates them into a temporary folder. Exits 77
(ctest: skipped) only when the browser cannot start; screenshots go to $PYTHIA_SCREENSHOT_DIR
(default: the system's temporary folder)."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

SKIP = 77


def fail(message):
    print("FAIL: " + message, flush=True)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def probe(pythia, tables, fen, extra):
    """`pythia tb probe --json` (with the server's --syzygy): the lichess-shaped answer for one position."""
    out = subprocess.run([pythia, "tb", "probe", "--json", "--dir", tables] + extra + [fen], capture_output=True,
                         text=True, timeout=60)
    return json.loads(out.stdout.splitlines()[0])


# The page shows each move's result from the mover's side: the category of the position after
# it, turned round.
MOVER = {"loss": "win", "blessed-loss": "cursed-win", "draw": "draw", "cursed-win": "blessed-loss", "win": "loss",
         "unknown": "unknown", "maybe-loss": "maybe-win", "maybe-win": "maybe-loss", "syzygy-loss": "maybe-win",
         "syzygy-win": "maybe-loss"}


def main():
    if len(sys.argv) < 2:
        fail(__doc__)
    pythia = sys.argv[1]
    tables = sys.argv[2] if len(sys.argv) > 2 else ""
    truth = sys.argv[3] if len(sys.argv) > 3 else ""
    syzygy = [os.path.join(truth, "..", "truth5", "syzygy"), os.path.join(truth, "syzygy")]
    have_syzygy = truth and os.path.exists(os.path.join(syzygy[0], "KRPvKR.rtbz")) and \
        os.path.exists(os.path.join(syzygy[1], "KRvK.rtbw"))
    extra = ["--syzygy", ":".join(syzygy)] if have_syzygy else []
    try:
        from selenium import webdriver
        from selenium.common.exceptions import WebDriverException, TimeoutException
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError as e:
        fail("python3-selenium is missing (scripts/test installs it): %s" % e)

    scratch = tempfile.mkdtemp(prefix="pythia-explorer-")
    # The sanitize tests name the release build's test tables (CMakePresets.json).
    if not (tables and os.path.exists(os.path.join(tables, "KRvK.pytw"))):
        tables = os.environ.get("PYTHIA_TEST_TABLES", tables)
    if not (tables and os.path.exists(os.path.join(tables, "KRvK.pytw")) and
            os.path.exists(os.path.join(tables, "KQvK.pytd"))):
        tables = os.path.join(scratch, "tables")
        subprocess.run([pythia, "tb", "generate", "KQvK", "KRvK", "--dir", tables], check=True,
                       stderr=subprocess.DEVNULL, timeout=300)

    port = free_port()
    base = "http://127.0.0.1:%d" % port
    server = subprocess.Popen([pythia, "tb", "serve", "--dir", tables, "--bind", "127.0.0.1:%d" % port,
                               "--threads", "8"] + extra, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    driver = None
    try:
        # The server prints its URL when it listens.
        line = server.stderr.readline()
        while line and "the explorer at" not in line:
            line = server.stderr.readline()
        check(base + "/" in line, "tb serve did not print its URL: %r" % line)

        options = Options()
        for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                  "--window-size=1200,820"]:
            options.add_argument(a)
        if os.path.exists("/usr/bin/chromium"):
            options.binary_location = "/usr/bin/chromium"
        try:
            service = Service("/usr/bin/chromedriver") if os.path.exists("/usr/bin/chromedriver") else Service()
            driver = webdriver.Chrome(service=service, options=options)
        except WebDriverException as e:
            print("PYTHIA_TEST_SKIPPED: headless Chromium cannot start here: %s" % str(e).splitlines()[0], flush=True)
            return SKIP
        wait = WebDriverWait(driver, 30)
        shots = os.environ.get("PYTHIA_SCREENSHOT_DIR", tempfile.gettempdir())

        def shown(fen):
            """Waits until the page shows the tables' answer for `fen`."""
            try:
                wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == fen)
            except TimeoutException:
                fail("the page never showed %s (it shows %s)" % (
                    fen, driver.find_element(By.ID, "fen").get_attribute("value")))

        def compare(fen):
            """What the page shows for `fen` against tb probe --json."""
            expected = probe(pythia, tables, fen, extra)
            verdict = driver.find_element(By.ID, "verdict")
            check(verdict.get_attribute("data-category") == expected["category"],
                  "%s: the page says %s, tb probe %s" % (fen, verdict.get_attribute("data-category"),
                                                         expected["category"]))
            buttons = driver.find_elements(By.CSS_SELECTOR, "#moves .move")
            shown_moves = {b.get_attribute("data-uci"): b for b in buttons}
            check(set(shown_moves) == {m["uci"] for m in expected["moves"]},
                  "%s: the page lists %s, tb probe %s" % (fen, sorted(shown_moves),
                                                          sorted(m["uci"] for m in expected["moves"])))
            for m in expected["moves"]:
                b = shown_moves[m["uci"]]
                check(b.get_attribute("data-result") == MOVER[m["category"]],
                      "%s %s: the page says %s, tb probe %s" % (fen, m["uci"], b.get_attribute("data-result"),
                                                                m["category"]))
                for key in ("dtm", "dtz"):
                    want = "" if m[key] is None else str(m[key])
                    check(b.get_attribute("data-" + key) == want,
                          "%s %s: %s %s on the page, %s from tb probe" % (fen, m["uci"], key,
                                                                          b.get_attribute("data-" + key), want))
                check(b.find_element(By.CLASS_NAME, "san").text == m["san"], "%s: SAN of %s" % (fen, m["uci"]))
            return expected

        # 1. A position from the URL (underscores for spaces, as the page writes it).
        start = "8/8/8/8/8/8/1k6/R6K w - - 0 1"
        driver.get(base + "/?fen=" + start.replace(" ", "_"))
        shown(start)
        before = compare(start)
        check(before["category"] == "win", "KRvK with White to move is a win, tb probe says " + before["category"])
        driver.save_screenshot(os.path.join(shots, "pythia-explorer-position.png"))

        # 2. Click the best move: the page plays it, shows the new position and puts it in the URL.
        best = before["moves"][0]
        driver.find_element(By.CSS_SELECTOR, '#moves .move[data-uci="%s"]' % best["uci"]).click()
        wait.until(lambda d: d.find_element(By.ID, "fen").get_attribute("value") != start)
        after_fen = driver.find_element(By.ID, "fen").get_attribute("value")
        shown(after_fen)
        after = compare(after_fen)
        check(after["category"] == best["category"] and after["dtm"] == best["dtm"],
              "after %s: %s, dtm %s; the move promised %s, dtm %s" % (best["uci"], after["category"], after["dtm"],
                                                                       best["category"], best["dtm"]))
        check(after_fen.split(" ")[1] == "b", "after White's move Black is to move: " + after_fen)
        check(after_fen.replace(" ", "_") in driver.current_url, "the URL holds the FEN: " + driver.current_url)
        driver.save_screenshot(os.path.join(shots, "pythia-explorer-after-move.png"))

        # 3. Back and forward.
        driver.find_element(By.ID, "back").click()
        shown(start)
        driver.find_element(By.ID, "forward").click()
        shown(after_fen)

        # 4. A pasted FEN, with a halfmove clock that spoils the win: a cursed win.
        cursed = "8/8/8/8/8/8/1k6/R6K w - - %d 70" % (101 - before["dtz"])
        box = driver.find_element(By.ID, "fen")
        box.clear()
        box.send_keys(cursed)
        driver.find_element(By.CSS_SELECTOR, "#fen-form button").click()
        shown(cursed)
        check(compare(cursed)["category"] == "cursed-win", "a late clock gives a cursed win")

        # 5. A board set up by hand: the white rook dragged off the board leaves a draw.
        driver.get(base + "/?fen=" + start.replace(" ", "_"))
        shown(start)
        rook = driver.find_element(By.CSS_SELECTOR, '.sq[data-square="a1"] .piece')
        header = driver.find_element(By.TAG_NAME, "h1")
        webdriver.ActionChains(driver).click_and_hold(rook).move_by_offset(10, 10).move_to_element(header) \
            .release().perform()
        bare = "8/8/8/8/8/8/1k6/7K w - - 0 1"
        shown(bare)
        check(compare(bare)["category"] == "draw", "two bare kings are a draw")

        # 6. A position the page cannot show: the error, no crash.
        driver.get(base + "/?fen=8/8/8/8/8/8/8/8_w_-_-_0_1")
        wait.until(lambda d: d.find_element(By.ID, "verdict").get_attribute("data-category") == "error")

        # 7. What the tables cover, from /tables, not a fixed text.
        coverage = json.loads(urllib.request.urlopen(base + "/tables", timeout=10).read())
        driver.get(base + "/?fen=" + start.replace(" ", "_"))
        shown(start)
        wait.until(lambda d: d.find_element(By.ID, "coverage").get_attribute("data-max-pieces"))
        line = driver.find_element(By.ID, "coverage")
        check(line.get_attribute("data-max-pieces") == str(coverage["max_pieces"]),
              "the page says up to %s pieces, /tables %s" % (line.get_attribute("data-max-pieces"),
                                                             coverage["max_pieces"]))
        for entry in coverage["pythia"]:
            check("%d pieces" % entry["pieces"] in line.text, "the page names %d pieces: %r" % (entry["pieces"],
                                                                                             line.text))

        # 8. On a phone (400 CSS pixels wide), in a desktop window as narrow (its scroll bar
        # takes part of that) and a wide one: the whole board on the screen, nothing to scroll
        # sideways, and a bad FEN in the URL shown with its error beside the box.
        for width, height, mobile in ((400, 780, True), (400, 780, False), (1200, 820, False)):
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
            driver.get(base + "/?fen=" + start.replace(" ", "_"))
            shown(start)
            fit = driver.execute_script("""
                const view = document.documentElement.clientWidth;
                const board = document.getElementById('board').getBoundingClientRect();
                const h1 = document.querySelector('.sq[data-square="h1"]').getBoundingClientRect();
                const a8 = document.querySelector('.sq[data-square="a8"]').getBoundingClientRect();
                return {view, scroll: document.documentElement.scrollWidth, left: board.left, right: board.right,
                        width: board.width, h1: h1.right, a8: a8.left};""")
            # (less a scroll bar on the desktop)
            check(width - 20 <= fit["view"] <= width, "the viewport is %s pixels wide, not %d" % (fit["view"], width))
            check(fit["left"] >= 0 and fit["right"] <= fit["view"] and fit["a8"] >= 0 and fit["h1"] <= fit["view"],
                  "%d px: the board is not all on the screen: %r" % (width, fit))
            check(fit["scroll"] <= fit["view"], "%d px: the page scrolls sideways: %r" % (width, fit))
            check(fit["width"] >= min(360, width - 40), "%d px: the board is too small: %r" % (width, fit))
            driver.save_screenshot(os.path.join(shots, "pythia-explorer-%d%s.png" % (width, "-phone" * mobile)))

            bad = "not/a/fen w - - 0 1"
            try:
                urllib.request.urlopen(base + "/standard?fen=" + bad.replace(" ", "_"), timeout=10)
                fail("the server accepted " + bad)
            except urllib.error.HTTPError as e:
                check(e.code == 400, "a bad FEN gets 400, not %d" % e.code)
                reason = json.loads(e.read())["error"]
            driver.get(base + "/?fen=" + bad.replace(" ", "_"))
            wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "error")
            error = driver.find_element(By.ID, "fen-error")
            check(error.is_displayed() and error.text == reason,
                  "%d px: beside the FEN box %r, the server says %r" % (width, error.text, reason))
            check(driver.find_element(By.ID, "fen").get_attribute("value") == bad,
                  "the FEN box keeps the FEN given: %r" % driver.find_element(By.ID, "fen").get_attribute("value"))
            check(not driver.find_elements(By.CSS_SELECTOR, ".board .piece"), "a bad FEN shows no default position")
            box = driver.find_element(By.ID, "fen").rect
            check(abs(error.rect["y"] - (box["y"] + box["height"])) < 40, "the error is not beside the FEN box")
            box_right = box["x"] + box["width"]
            check(box_right <= width, "%d px: the FEN box runs off the screen" % width)
            driver.save_screenshot(os.path.join(shots, "pythia-explorer-bad-fen-%d%s.png" % (width, "-phone" * mobile)))
            # A good FEN typed in its place clears the error.
            field = driver.find_element(By.ID, "fen")
            field.clear()
            field.send_keys(start)
            driver.find_element(By.CSS_SELECTOR, "#fen-form button").click()
            shown(start)
            check(not driver.find_element(By.ID, "fen-error").is_displayed(), "the error stays after a good FEN")
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

        # 9. Lucena's position (KRPvKR), which only the Syzygy files hold: no mate distance.
        if have_syzygy:
            lucena = "1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1"
            driver.get(base + "/?fen=" + lucena.replace(" ", "_"))
            shown(lucena)
            answer = compare(lucena)
            check(answer["category"] == "win" and answer["dtm"] is None and answer["precise_dtz"] is None,
                  "Lucena's position from Syzygy: %r" % {k: answer[k] for k in ("category", "dtm", "precise_dtz")})
            detail = driver.find_element(By.ID, "verdict-detail").text
            check("Syzygy" in detail, "the verdict does not say the Syzygy files answered: %r" % detail)
            best = driver.find_element(By.CSS_SELECTOR, '#moves .move[data-uci="%s"]' % answer["moves"][0]["uci"])
            check(best.find_element(By.CSS_SELECTOR, ".badge.main").text == "win",
                  "the best move's badge: %r" % best.text)
            driver.save_screenshot(os.path.join(shots, "pythia-explorer-syzygy.png"))
        else:
            print("note: no Syzygy truth files under %r: the Syzygy part is left out" % truth, flush=True)
        print("OK: the explorer agrees with tb probe; screenshots in %s/pythia-explorer-*.png" % shots, flush=True)
        return 0
    finally:
        if driver is not None:
            driver.quit()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
