"""The console in a real browser: headless Chromium, driven by Selenium,
against `denpex serve` on a free loopback port. Pastes a failed log, uploads
several files, checks the verdict and the timeline's initiating mark against
what `denpex diagnose --json` says of the same input, checks that markup in a
log stays text, and opens report.html pages (16 ranks and a simulated 4096).
Screenshots go to the build tree: tests/console-*.png."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server import Server  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

SRC = os.environ.get("top_srcdir", ".")
BUILD = os.environ.get("top_builddir", ".")
DENPEX = os.path.join(BUILD, "denpex")
CONF = os.path.join(SRC, "conf")
EXAMPLE = os.path.join(SRC, "tests", "data", "example", "multinode-xid")
SHOTS = os.path.join(BUILD, "tests")
results = []


def check(name, cond, detail=""):
    results.append(bool(cond))
    print(("ok   " if cond else "FAIL ") + name + (" (%s)" % detail if detail else ""), flush=True)


def cli_verdict(args, stdin=None):
    """What the command line says of the same input: the expected verdict."""
    out = subprocess.run([DENPEX, "diagnose", "--json", "--conf", CONF] + args, input=stdin,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120, check=True).stdout
    return json.loads(out)


def browser():
    o = webdriver.ChromeOptions()
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1280,1400", "--lang=en-US", "--no-first-run", "--disable-extensions"]:
        o.add_argument(a)
    o.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    svc = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    d = webdriver.Chrome(service=svc, options=o)
    d.set_page_load_timeout(60)
    d.set_script_timeout(30)
    return d


def full_screenshot(d, name):
    h = d.execute_script("return Math.max(document.body.scrollHeight, document.documentElement.scrollHeight)")
    d.set_window_size(1280, min(int(h) + 40, 6000))
    time.sleep(0.3)
    path = os.path.join(SHOTS, name)
    d.save_screenshot(path)
    d.set_window_size(1280, 1400)
    return path


def page_verdict(d):
    """The verdict as the page shows it: its JSON block, and the SVG mark."""
    WebDriverWait(d, 60).until(EC.presence_of_element_located((By.ID, "verdict")))
    shown = json.loads(d.find_element(By.ID, "verdict-json").get_attribute("textContent"))
    marks = d.find_elements(By.CSS_SELECTOR, "#timeline svg g.initiating")
    mark = marks[0].get_attribute("data-rank") if marks else None
    return shown, mark


def csp_errors(d):
    return [e["message"] for e in d.get_log("browser")
            if "Content Security Policy" in e["message"] or "Refused to" in e["message"]]


def foreign_resources(d, base):
    urls = d.execute_script("return performance.getEntriesByType('resource').map(function (e) { return e.name; })")
    return [u for u in urls if not u.startswith(base)]


def main():
    srv = Server()
    d = browser()
    tmp = tempfile.mkdtemp(prefix="denpex-console-")
    try:
        base = srv.url + "/"
        # 1. The empty console.
        d.get(base)
        check("page loads with the paste box, the file picker and Diagnose",
              d.find_elements(By.ID, "paste") and d.find_elements(By.ID, "files")
              and d.find_element(By.ID, "diagnose").text == "Diagnose")
        check("page: every resource from the server itself", not foreign_resources(d, srv.url), foreign_resources(d, srv.url))
        check("page: nothing refused by the Content-Security-Policy", not csp_errors(d), csp_errors(d))

        # 2. Paste one failed log (inserted as a paste inserts text) and submit.
        job = open(os.path.join(EXAMPLE, "job.out"), encoding="utf-8").read()
        box = d.find_element(By.ID, "paste")
        box.click()
        d.execute_cdp_cmd("Input.insertText", {"text": job})
        check("the pasted log is in the box", d.execute_script("return document.getElementById('paste').value.length") == len(job))
        d.find_element(By.ID, "diagnose").click()
        shown, mark = page_verdict(d)
        want = cli_verdict(["-"], job.encode())
        check("pasted: the page's class is the CLI's", shown["class"] == want["class"], shown["class"])
        check("pasted: the page's first rank and host are the CLI's",
              shown["first"]["rank"] == want["first"]["rank"] and shown["first"]["host"] == want["first"]["host"],
              "%s on %s" % (shown["first"]["rank"], shown["first"]["host"]))
        check("pasted: the class is shown", d.find_element(By.ID, "verdict-class").text == want["class"])
        first_text = d.find_element(By.ID, "verdict-first").text
        check("pasted: first rank and host shown", "rank %d on %s" % (want["first"]["rank"], want["first"]["host"]) in first_text,
              first_text)
        check("pasted: the initiating line with file:line", d.find_element(By.ID, "verdict-source").text == "pasted:" +
              want["first"]["source"].split(":")[-1])
        check("pasted: the timeline marks the initiating rank", mark == str(want["first"]["rank"]), "data-rank=%s" % mark)
        comment = d.find_element(By.ID, "verdict-comment").get_attribute("value")
        check("pasted: the Comment line ready to copy", comment.startswith("denpex: " + want["class"]), comment)
        check("pasted: no CSP refusal on the verdict page", not csp_errors(d), csp_errors(d))
        shot = full_screenshot(d, "console-paste.png")
        check("pasted: screenshot " + shot, os.path.getsize(shot) > 10000)

        # 3. Several files at once through the picker.
        d.get(base)
        files = [os.path.join(os.path.abspath(EXAMPLE), n) for n in sorted(os.listdir(EXAMPLE)) if n != "expected.json"]
        d.find_element(By.ID, "files").send_keys("\n".join(files))
        check("%d files chosen" % len(files), d.execute_script("return document.getElementById('files').files.length") == len(files))
        d.find_element(By.ID, "diagnose").click()
        shown, mark = page_verdict(d)
        want = cli_verdict(files)
        check("files: the page's class is the CLI's", shown["class"] == want["class"], shown["class"])
        check("files: the first rank and host are the CLI's",
              (shown["first"]["rank"], shown["first"]["host"]) == (want["first"]["rank"], want["first"]["host"]),
              "%s on %s" % (shown["first"]["rank"], shown["first"]["host"]))
        check("files: the initiating line names the kernel log's file:line",
              d.find_element(By.ID, "verdict-source").text == os.path.basename(want["first"]["source"]),
              d.find_element(By.ID, "verdict-source").text)
        check("files: the timeline marks the initiating rank", mark == str(want["first"]["rank"]), "data-rank=%s" % mark)
        victims = d.find_elements(By.CSS_SELECTOR, "#timeline svg rect.victim")
        check("files: victims shaded, one row each", len(victims) == want["victims"]["count"], "%d shaded" % len(victims))
        clock = d.find_element(By.CSS_SELECTOR, "#timeline svg g.clock").text
        skewed = [h for h, c in want["clock"].items() if abs(c["offset_s"]) >= 0.001]
        check("files: the clock corrections shown", all(h in clock for h in skewed) and "%+.3f" % want["clock"][skewed[0]]["offset_s"] in clock,
              clock.replace("\n", " ")[:160])
        d.find_element(By.ID, "copy-comment").click()
        check("files: Copy button works", d.find_element(By.ID, "copy-comment").text == "Copied")
        shot = full_screenshot(d, "console-verdict.png")
        check("files: screenshot " + shot, os.path.getsize(shot) > 10000)

        # 3b. Files dropped on the drop zone join the picker (a drop as the
        # page sees one: Selenium cannot drag from the desktop).
        d.get(base)
        kern = open(os.path.join(EXAMPLE, "kern.node02.log"), encoding="utf-8").read()
        d.execute_script("""
            var dt = new DataTransfer();
            dt.items.add(new File([arguments[0]], 'job.out', {type: 'text/plain'}));
            dt.items.add(new File([arguments[1]], 'kern.node02.log', {type: 'text/plain'}));
            var zone = document.getElementById('drop');
            zone.dispatchEvent(new DragEvent('dragover', {dataTransfer: dt, bubbles: true, cancelable: true}));
            zone.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
        """, job, kern)
        names = d.execute_script("return Array.prototype.map.call(document.getElementById('files').files, function (f) { return f.name; })")
        check("dropped files join the picker", names == ["job.out", "kern.node02.log"], names)
        d.find_element(By.ID, "diagnose").click()
        shown, mark = page_verdict(d)
        want = cli_verdict([os.path.join(EXAMPLE, "job.out"), os.path.join(EXAMPLE, "kern.node02.log")])
        check("dropped: the page's verdict is the CLI's",
              (shown["class"], shown["first"]["rank"], mark) == (want["class"], want["first"]["rank"], str(want["first"]["rank"])),
              "%s rank %s" % (shown["class"], shown["first"]["rank"]))

        # 4. A log full of markup stays text in the browser.
        evil = ("<script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\">\n"
                "[rank3]: Traceback (most recent call last):\n"
                "[rank3]:   File \"/w/<b>train</b>.py\", line 1, in <module>\n"
                "[rank3]: RuntimeError: <script>window.pwned=3</script><svg onload=\"window.pwned=4\"></svg>\n")
        d.get(base)
        d.find_element(By.ID, "paste").click()
        d.execute_cdp_cmd("Input.insertText", {"text": evil})
        d.find_element(By.ID, "diagnose").click()
        WebDriverWait(d, 60).until(EC.presence_of_element_located((By.ID, "verdict")))
        check("markup: no script from the log ran", d.execute_script("return typeof window.pwned") == "undefined")
        body = d.find_element(By.TAG_NAME, "body").text
        check("markup: shown as text", "<script>window.pwned=3</script>" in body)
        check("markup: no element from the log", not d.find_elements(By.CSS_SELECTOR, "main img, main b"))

        # 5. report.html, static, as the epilog writes it: 16 ranks.
        report = os.path.join(tmp, "report.html")
        want = json.loads(subprocess.run([DENPEX, "diagnose", "--json", "--conf", CONF, "--html", report, EXAMPLE],
                                         stdout=subprocess.PIPE, check=True, timeout=120).stdout)
        d.get("file://" + report)
        svg = d.find_elements(By.CSS_SELECTOR, "#timeline svg.denpex-timeline")
        mark = d.find_elements(By.CSS_SELECTOR, "#timeline svg g.initiating")
        check("report.html: opens and shows the timeline", len(svg) == 1 and svg[0].size["height"] > 200,
              svg[0].size if svg else "no svg")
        check("report.html: marks the initiating rank", mark and mark[0].get_attribute("data-rank") == str(want["first"]["rank"]))
        check("report.html: no script in it", not d.find_elements(By.TAG_NAME, "script"))
        check("report.html: nothing refused by its policy", not csp_errors(d), csp_errors(d))
        rows = d.find_elements(By.CSS_SELECTOR, "#timeline svg g.row")
        check("report.html: 16 ranks in 16 rank rows and a kernel lane", len(rows) == 17, "%d rows" % len(rows))
        full_screenshot(d, "console-report-16.png")

        # 6. A simulated 4096-rank failure: nodes and bands, never 4096 rows.
        sim = os.path.join(tmp, "sim4096")
        py = sys.executable
        subprocess.run([py, os.path.join(SRC, "tests", "sim", "denpex_sim.py"), "--seed", "14", "--out", sim,
                        "--class", "gpu_hardware", "--ranks", "4096"], check=True, timeout=300, stdout=subprocess.DEVNULL)
        truth = json.load(open(os.path.join(sim, "truth.json")))
        report = os.path.join(tmp, "report4096.html")
        want = json.loads(subprocess.run([DENPEX, "diagnose", "--json", "--conf", CONF, "--html", report, sim],
                                         stdout=subprocess.PIPE, check=True, timeout=300).stdout)
        d.get("file://" + report)
        rows = d.find_elements(By.CSS_SELECTOR, "#timeline svg g.row")
        mark = d.find_elements(By.CSS_SELECTOR, "#timeline svg g.initiating")
        svg = d.find_element(By.CSS_SELECTOR, "#timeline svg.denpex-timeline")
        check("4096 ranks: at most 48 rows (nodes and bands)", 0 < len(rows) <= 48, "%d rows, %d px high" % (len(rows), svg.size["height"]))
        check("4096 ranks: the first rank has its own row",
              rows and rows[0].get_attribute("data-ranks") == str(want["first"]["rank"]), rows[0].get_attribute("data-ranks") if rows else "")
        check("4096 ranks: the initiating mark is the simulated first rank",
              mark and mark[0].get_attribute("data-rank") == str(truth["first_rank"]),
              "data-rank=%s, truth %s" % (mark[0].get_attribute("data-rank") if mark else None, truth["first_rank"]))
        shot = full_screenshot(d, "console-report-4096.png")
        check("4096 ranks: screenshot " + shot, os.path.getsize(shot) > 10000)
    finally:
        d.quit()
        rc = srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    check("server stops cleanly", rc == 0, "exit %s" % rc)
    print("browser: %d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
