#!/usr/bin/env python3
"""Browser test of the Sluice Inspector page (headless Chromium through Selenium 4).

Runs against a live inspector whose app keeps dispatching actions (slowly):

    python3 Tests/Browser/inspector_browser_test.py --url 'http://127.0.0.1:PORT/?token=T'

Needs Debian's `chromium` and `chromium-driver` and `pip install selenium`. It assumes no
particular action or store: it reads everything it checks from the page. It prints one line per
check and ends with "N passed, M failed"; the exit status is nonzero when any check failed.
The element ids it relies on are documented at the top of Sources/SluiceInspector/Page/inspector.js.
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
import traceback
import urllib.parse

from selenium import webdriver
from selenium.common.exceptions import (ElementClickInterceptedException, StaleElementReferenceException,
                                        TimeoutException, WebDriverException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

# A plain name (a letter or _, then letters, digits, _) is written `.name`, as the server and page do.
IDENT = re.compile(r"^[^\W\d]\w*$")


def join_path(path, key):
    """The protocol's path syntax, as the page builds it: a.b[2].c, dictionary keys as ["key"]."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if IDENT.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def leaves(value, path=""):
    """(path, value) for each scalar inside a JSON value (an empty object/array counts as one)."""
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from leaves(v, join_path(path, k))
    elif isinstance(value, list) and value:
        for i, v in enumerate(value):
            yield from leaves(v, join_path(path, i))
    else:
        yield path, value


class Failure(Exception):
    pass


# JavaScript run in the page. All lookups go by data attributes, never by cached elements: the
# page re-renders trees as records arrive.
JS_ROWS = """
return [...document.querySelectorAll('#log .log-row')].map(r => ({
  seq: Number(r.dataset.seq), kind: r.dataset.kind || '',
  type: r.querySelector('.c-type').textContent, changes: !r.classList.contains('no-change')}));
"""

JS_DIFF = """
const d = document.getElementById('detail');
if (d.dataset.seq !== String(arguments[0])) return null;
return [...d.querySelectorAll('.diff-line')].map(l => ({
  store: l.dataset.store, path: l.dataset.path, text: l.textContent,
  old: 'old' in l.dataset ? l.dataset.old : null, new: 'new' in l.dataset ? l.dataset.new : null}));
"""

# The log's cells that do not show all their text (the payload, the action and the cause, and
# the parts of a cause that may shrink), among the newest rows.
JS_CLIPPED = """
const rows = [...document.querySelectorAll('#log .log-row')].slice(-100);
return rows.flatMap(r => [...r.querySelectorAll('.c-type, .c-payload, .c-cause, .c-cause .effect-name, .c-cause .observer')]
  .filter(c => c.scrollWidth > c.clientWidth)
  .map(c => ({seq: r.dataset.seq, cell: c.className, text: c.textContent, scroll: c.scrollWidth, client: c.clientWidth})));
"""

# Opens the tree nodes along a path in one panel and returns the leaf's text, the node's
# kind, or null while it is not rendered yet (opening a <details> renders its children on the
# next task, so callers poll).
JS_VALUE_AT = """
const [panelId, store, prefixes] = arguments;
const panel = document.getElementById(panelId);
const block = [...panel.querySelectorAll('.store-state')].find(b => b.dataset.store === store);
if (!block) return {missing: 'store'};
const tree = block.querySelector('.tree');
const find = p => p === '' ? tree : [...block.querySelectorAll('.tnode')].find(n => n.dataset.path === p);
// A child that is not rendered: absent, or not shown yet (closed parent, or past "Show more").
const absent = (parentPath, path) => {
  const parent = find(parentPath);
  if (!parent) return null;
  if (parent.tagName === 'DETAILS' && !parent.open) { parent.open = true; return null; }
  const children = parent === tree ? tree : parent.querySelector(':scope > .tchildren');
  const more = children && children.querySelector(':scope > .more');
  if (more) { more.click(); return null; }
  return {missing: path};
};
const target = prefixes[prefixes.length - 1];
if (target === '') {
  const root = tree.querySelector(':scope > .tleaf');
  return root ? {leaf: root.querySelector('.tval').textContent} : {node: ''};
}
for (let i = 1; i < prefixes.length; i++) {
  const node = find(prefixes[i]);
  if (!node) return absent(prefixes[i - 1], prefixes[i]);
  if (i === prefixes.length - 1) break;
  if (node.tagName === 'DETAILS' && !node.open) { node.open = true; return null; }
}
const node = find(target);
if (node.classList.contains('tleaf')) return {leaf: node.querySelector('.tval').textContent};
return {node: node.querySelector('.tmeta') ? node.querySelector('.tmeta').textContent : ''};
"""

# The first leaf the page marks as different from the other side, opening marked nodes as needed.
JS_FIRST_DIFFERENCE = """
const panel = document.getElementById(arguments[0]);
const leaf = panel.querySelector('.tleaf.differs, .tleaf.only-here');
if (leaf) return {store: leaf.closest('.store-state').dataset.store, path: leaf.dataset.path,
                  text: leaf.querySelector('.tval').textContent};
const closed = panel.querySelector('details.tnode.differs:not([open]), details.tnode.only-here:not([open])');
if (closed) closed.open = true;
return null;
"""


class InspectorTest:
    def __init__(self, args):
        self.args = args
        self.url = args.url
        self.timeout = args.timeout
        self.downloads = tempfile.mkdtemp(prefix="sluice-inspector-downloads-")
        self.passed = 0
        self.failed = 0
        self.driver = self.start_browser()

    # ── setup ──

    def start_browser(self):
        options = webdriver.ChromeOptions()
        options.binary_location = self.args.chromium
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,900",
                    "--disable-gpu", "--no-first-run"):
            options.add_argument(arg)
        options.add_experimental_option("prefs", {
            "download.default_directory": self.downloads,
            "download.prompt_for_download": False,
            "download.directory_upgrade": True,
            "safebrowsing.enabled": True,
        })
        driver = webdriver.Chrome(service=Service(self.args.chromedriver), options=options)
        for cmd in ("Browser.setDownloadBehavior", "Page.setDownloadBehavior"):
            try:
                driver.execute_cdp_cmd(cmd, {"behavior": "allow", "downloadPath": self.downloads})
                break
            except WebDriverException:
                continue
        driver.set_page_load_timeout(self.timeout)
        return driver

    def close(self):
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.downloads, ignore_errors=True)

    # ── helpers ──

    def wait(self, condition, message, timeout=None):
        """Waits until condition(driver) is truthy and returns it; fails with `message` (or its result)."""
        try:
            return WebDriverWait(self.driver, timeout or self.timeout, poll_frequency=0.25,
                                 ignored_exceptions=(WebDriverException,)).until(condition)
        except TimeoutException:
            text = message() if callable(message) else message
            raise Failure(f"timed out after {timeout or self.timeout} s: {text}") from None

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def by_id(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def click(self, locate):
        """Clicks the element `locate()` finds, finding it afresh on each attempt.

        Rows move while the log fills (and old ones are dropped), and lists such as the
        observers are rendered again when the server's reply arrives, so a click can land on a
        neighbour for a moment, or the element found can be replaced before the click: scroll
        it to the middle, and on either failure find it again and retry a few times.
        """
        for attempt in range(5):
            try:
                element = locate()
                self.js("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", element)
                element.click()
                return
            except (ElementClickInterceptedException, StaleElementReferenceException):
                if attempt == 4:
                    raise
                time.sleep(0.2)

    def click_until(self, locate, condition, message):
        """Clicks `locate()` until `condition(driver)` holds, and returns its value.

        A row can be rendered again between the moment a click is dispatched and the moment it
        reaches the table's handler (the log grows every 300 ms): that click is lost, or lands
        on a neighbouring row, not late. So a click that has not had its effect after a few
        seconds is made again, up to the hang guard; a page that never shows it still fails.
        """
        deadline = time.monotonic() + 60
        while True:
            self.click(locate)
            try:
                return self.wait(condition, message, timeout=5)
            except Failure:
                if time.monotonic() > deadline:
                    raise

    def row(self, seq):
        return self.driver.find_element(By.CSS_SELECTOR, f'#log .log-row[data-seq="{seq}"]')

    def rows(self):
        return self.js(JS_ROWS) or []

    def tab(self, name):
        self.click(lambda: self.by_id(f"tab-{name}"))

    def open_page(self, url):
        self.driver.get(url)
        try:
            self.wait(lambda d: self.by_id("conn-status").get_attribute("data-state") == "open", "")
        except Failure:
            raise Failure("the page did not connect to the inspector: #conn-status never became 'open'; "
                          f"it says {self.by_id('conn-status').text!r}") from None

    def rows_with_changes(self, minimum=1):
        found = self.wait(lambda d: [r for r in self.rows() if r["changes"]][-minimum:]
                          if len([r for r in self.rows() if r["changes"]]) >= minimum else None,
                          f"the log never held {minimum} record(s) that changed a store")
        return found

    def select(self, seq):
        """Clicks the record's row and waits for its detail; returns its diff lines.

        A row can be rendered again between the moment the click is dispatched and the moment
        it reaches the table's handler (the log grows every 300 ms): that click is lost, not
        late. So a click that has not selected the row after a few seconds is made again, up to
        the hang guard; a page that never shows the detail still fails.
        """
        return self.click_until(
            lambda: self.row(seq).find_element(By.CSS_SELECTOR, ".c-seq"),
            lambda d: self.js(JS_DIFF, seq),
            f"selecting #{seq} did not show its detail (#detail[data-seq] never became {seq})")

    def value_at(self, panel_id, store, path):
        """What the tree in `panel_id` shows for store/path: {'leaf': text} | {'node': meta} | {'missing': ...}."""
        prefixes = [""]
        segs = parse_path(path)
        for i in range(1, len(segs) + 1):
            prefixes.append(format_path(segs[:i]))
        if path == "":
            prefixes = [""]
        return self.wait(lambda d: self.js(JS_VALUE_AT, panel_id, store, prefixes),
                         f"could not reveal {path!r} of store {store!r} in #{panel_id}")

    # ── running ──

    def run(self, number, name, check):
        try:
            check()
        except Exception as error:  # noqa: BLE001 — every failure is reported the same way
            self.failed += 1
            detail = str(error) if isinstance(error, (Failure, AssertionError)) else traceback.format_exc(limit=3)
            print(f"FAIL {number}. {name}: {detail}", flush=True)
            if self.args.artifacts:
                os.makedirs(self.args.artifacts, exist_ok=True)
                try:
                    self.driver.save_screenshot(os.path.join(self.args.artifacts, f"check-{number}.png"))
                except WebDriverException:
                    pass
        else:
            self.passed += 1
            print(f"PASS {number}. {name}", flush=True)

    # ── the checks ──

    def check_log_fills(self):
        self.open_page(self.url)
        first = self.wait(lambda d: self.rows() or None, "no row ever appeared in the log (#log .log-row)")
        newest = max(r["seq"] for r in first)
        count = len(first)
        grown = self.wait(lambda d: (lambda rs: rs if rs and (max(r["seq"] for r in rs) > newest or len(rs) > count) else None)(self.rows()),
                          f"the log did not grow: still {count} rows, newest #{newest}")
        assert len(grown) >= 1
        count_text = self.by_id("log-count").text
        assert re.search(r"\d", count_text), f"#log-count shows no count: {count_text!r}"

    def check_columns_readable_at_1400(self):
        """At 1400 px wide, the payload, action and cause cells show all their text."""
        self.driver.set_window_size(1400, 900)
        inner = self.js("return window.innerWidth")
        if inner != 1400:  # the window's frame, if any, is not part of the page
            self.driver.set_window_size(1400 + 1400 - inner, 900)
        width = self.js("return window.innerWidth")
        assert width == 1400, f"the page is {width} px wide, not 1400"
        self.wait(lambda d: len(self.rows()) >= 5, "fewer than 5 rows in the log")
        clipped = self.js(JS_CLIPPED)
        assert not clipped, f"{len(clipped)} cells are cut at 1400 px, e.g. {clipped[:3]}"

    def check_diff(self):
        row = self.rows_with_changes()[-1]
        lines = self.select(row["seq"])
        assert lines, f"#{row['seq']} ({row['type']}) changed a store, but its detail shows no diff line"
        pattern = re.compile(r"^.*: .* → .*$", re.S)
        bad = [l["text"] for l in lines if not pattern.match(l["text"])]
        assert not bad, f"diff lines not shaped 'path: old → new': {bad[:3]}"
        assert all(l["store"] is not None and l["path"] is not None for l in lines), "diff lines lack data-store/data-path"

    def check_why(self):
        row = self.rows_with_changes()[-1]
        seq = row["seq"]
        lines = self.select(seq)
        assert lines, f"#{seq} has no diff line to ask about"
        line = lines[0]
        self.tab("why")
        Select(self.by_id("why-store")).select_by_value(line["store"])
        field = self.by_id("why-path")
        field.clear()
        field.send_keys(line["path"])
        self.click(lambda: self.by_id("why-go"))
        steps = self.wait(lambda d: self.js(
            "return [...document.querySelectorAll('#why-result .why-step')].map(s => ({seq: Number(s.dataset.seq),"
            " links: [...s.querySelectorAll('.chain-link')].map(a => Number(a.dataset.seq)),"
            " diff: [...s.querySelectorAll('.diff-line')].map(l => l.textContent)}))") or None,
            f"asking why {line['path']!r} of store {line['store']} changed showed no step (#why-result .why-step)")
        kept = {r["seq"] for r in self.rows()}
        if seq in kept:
            assert seq in [s["seq"] for s in steps], \
                f"#{seq} changed {line['path']!r} but is not among the steps {[s['seq'] for s in steps]}"
        for step in steps:
            assert step["links"] and step["links"][0] == step["seq"], f"step #{step['seq']} shows no chain starting at itself: {step['links']}"
            assert step["diff"] and " → " in step["diff"][0], f"step #{step['seq']} shows no change: {step['diff']}"
        # Following a chain link selects that record.
        link = f'#why-result .why-step[data-seq="{steps[0]["seq"]}"] .chain-link'
        if steps[0]["seq"] in kept:
            self.click(lambda: self.driver.find_element(By.CSS_SELECTOR, link))
            self.wait(lambda d: self.by_id("detail").get_attribute("data-seq") == str(steps[0]["seq"]),
                      f"clicking the chain link #{steps[0]['seq']} did not select it")

    def check_why_observer(self):
        # The Why tab lists the stores' observers; picking one with a path shows why it fired.
        self.tab("detail")
        self.tab("why")
        observers = self.wait(lambda d: self.js(
            "return [...document.querySelectorAll('#why-observers .why-observer')].map(a =>"
            " ({store: a.dataset.store, path: a.dataset.path, text: a.textContent}))") or None,
            "the Why tab lists no observer (#why-observers .why-observer)")
        with_path = [o for o in observers if o["path"]]
        assert with_path, f"no observer with a path among {observers}"
        chosen = with_path[0]
        # The list is rendered again when the server's reply to the tab's request arrives.
        # A path can hold quotes (["key"]), so the link is found by its data, not by a selector.
        self.click(lambda: self.js(
            "return [...document.querySelectorAll('#why-observers .why-observer')]"
            ".find(a => a.dataset.store === arguments[0] && a.dataset.path === arguments[1])",
            chosen["store"], chosen["path"]))
        steps = self.wait(lambda d: self.js(
            "const r = document.getElementById('why-result');"
            " return r.querySelector('.why-step') && document.getElementById('why-path').value === arguments[0]"
            " ? [...r.querySelectorAll('.why-step')].map(s => Number(s.dataset.seq)) : null", chosen["path"]) or None,
            f"picking the observer {chosen['text']!r} showed no step")
        assert steps, f"picking {chosen['text']!r} showed no step"

    def check_jump(self):
        # An earlier record E that changed something, with later records that changed things too.
        changed = self.rows_with_changes(minimum=3)
        earlier = changed[0]
        seq = earlier["seq"]
        lines = self.select(seq)
        chosen = next((l for l in lines if l["new"] is not None), None)
        assert chosen, f"#{seq} has no change with a new value"
        newest_before = max(r["seq"] for r in self.rows())

        label = self.click_until(
            lambda: self.row(seq).find_element(By.CSS_SELECTOR, ".jump-btn"),
            lambda d: (lambda el: el.text if el.get_attribute("data-seq") == str(seq) else None)(self.by_id("fork-label")),
            lambda: f"pressing Jump on #{seq} did not show the fork (#fork-label data-seq); "
            f"it shows {self.by_id('fork-label').get_attribute('data-seq')!r}")
        assert f"#{seq}" in label and "live app is unchanged" in label, f"unexpected fork label: {label!r}"

        # The fork shows the state after E: the value E wrote.
        store, path, new = chosen["store"], chosen["path"], json.loads(chosen["new"])
        for leaf_path, leaf_value in list(leaves(new, path))[:20]:
            shown = self.value_at("fork-state", store, leaf_path)
            if isinstance(leaf_value, (dict, list)):  # empty object/array
                assert "node" in shown, f"fork: after #{seq} ({chosen['text']}), {leaf_path!r} should be an empty container, shows {shown}"
            else:
                assert "leaf" in shown and json.loads(shown["leaf"]) == leaf_value, \
                    f"fork: after #{seq} ({chosen['text']}), {store} {leaf_path!r} should be {json.dumps(leaf_value)}, shows {shown}"

        # The live panel still shows the newer state: somewhere it differs from the fork.
        difference = self.wait(lambda d: self.js(JS_FIRST_DIFFERENCE, "live-state"),
                               f"the live panel (#live-state) never differed from the fork after #{seq}, though later records changed state")
        in_fork = self.value_at("fork-state", difference["store"], difference["path"])
        assert in_fork.get("leaf") != difference["text"], \
            f"{difference['store']} {difference['path']!r}: live shows {difference['text']}, fork shows the same {in_fork}"
        # Jumping did not touch the live app: no replacement record appeared.
        time.sleep(1)
        replaced = [r["seq"] for r in self.rows() if r["kind"] == "replacement" and r["seq"] > newest_before]
        assert not replaced, f"replacement records {replaced} appeared after a jump: the live app was changed"

    def check_export(self):
        for name in os.listdir(self.downloads):
            os.remove(os.path.join(self.downloads, name))
        self.click(lambda: self.by_id("export"))
        target = os.path.join(self.downloads, "sluice-session.json")
        self.wait(lambda d: os.path.exists(target) and not any(n.endswith(".crdownload") for n in os.listdir(self.downloads)),
                  f"no sluice-session.json was downloaded (downloads dir holds {os.listdir(self.downloads)})")
        with open(target, encoding="utf-8") as f:
            session = json.load(f)
        assert session.get("format") == "sluice-inspector-session", f"format is {session.get('format')!r}"
        assert isinstance(session.get("records"), list) and session["records"], "the session has no records"
        self.session_file = target

    def check_import(self):
        path = getattr(self, "session_file", None)
        assert path and os.path.exists(path), "no exported session to import (the export check failed)"
        with open(path, encoding="utf-8") as f:
            records = len(json.load(f)["records"])
        self.by_id("import-file").send_keys(path)
        self.wait(lambda d: self.by_id("replay-pos").get_attribute("data-step") == "0",
                  "importing the session did not show its replay at step 0 (#replay-pos data-step)")
        count = self.js("return Number(document.getElementById('import-log').dataset.count)")
        assert count == records, f"the imported log holds {count} records, the file {records}"
        self.click(lambda: self.by_id("replay-next"))
        self.wait(lambda d: self.by_id("replay-pos").get_attribute("data-step") == "1", "Forward did not step to 1")
        self.click(lambda: self.by_id("replay-prev"))
        self.wait(lambda d: self.by_id("replay-pos").get_attribute("data-step") == "0", "Back did not step to 0")
        self.click(lambda: self.by_id("view-live"))

    def check_pause(self):
        button = self.by_id("pause")
        assert button.text == "Pause", f"#pause says {button.text!r}"
        self.click(lambda: self.by_id("pause"))
        self.wait(lambda d: self.by_id("pause").text == "Resume", "after Pause, the button never said Resume")
        self.click(lambda: self.by_id("pause"))
        self.wait(lambda d: self.by_id("pause").text == "Pause", "after Resume, the button never said Pause")

    def check_wrong_token(self):
        parts = urllib.parse.urlsplit(self.url)
        query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query) if k != "token"] + [("token", "wrong")]
        wrong = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))
        self.driver.get(wrong)
        state = self.wait(lambda d: (lambda s: s if s in ("closed", "refused") else None)(self.by_id("conn-status").get_attribute("data-state")),
                          "with a wrong token, #conn-status never said the page is not connected")
        text = self.by_id("conn-status").text
        assert "Not connected" in text, f"with a wrong token, #conn-status says {text!r} (state {state})"
        time.sleep(2)
        assert self.by_id("conn-status").get_attribute("data-state") != "open", "a wrong token connected"
        assert not self.rows(), "with a wrong token, the log shows records"


def parse_path(path):
    segs, i = [], 0
    while i < len(path):
        c = path[i]
        if c == ".":
            i += 1
        elif c == "[":
            if path[i + 1] == '"':
                key, end = json.JSONDecoder().raw_decode(path, i + 1)
                segs.append(key)
                i = end + 1
            else:
                end = path.index("]", i)
                segs.append(int(path[i + 1:end]))
                i = end + 1
        else:
            m = re.match(r"[\w$]+", path[i:])
            if not m:
                raise ValueError(f"bad path {path!r}")
            segs.append(m.group(0))
            i += len(m.group(0))
    return segs


def format_path(segs):
    path = ""
    for s in segs:
        path = join_path(path, s)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="the inspector's page, http://127.0.0.1:PORT/?token=TOKEN")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--timeout", type=float, default=30, help="seconds each wait may take (default 30)")
    parser.add_argument("--artifacts", help="a directory for screenshots of failed checks")
    args = parser.parse_args()

    test = InspectorTest(args)
    checks = [
        ("the log fills as actions are dispatched", test.check_log_fills),
        ("at 1400 px the payload, action and cause columns are not cut", test.check_columns_readable_at_1400),
        ("selecting an action shows its diff", test.check_diff),
        ("'why did this update' shows a chain", test.check_why),
        ("'why' for an observer shows the steps that moved it", test.check_why_observer),
        ("jump shows the old state, the live state is unchanged", test.check_jump),
        ("export downloads a session file", test.check_export),
        ("import replays the exported session", test.check_import),
        ("pause and resume toggle", test.check_pause),
        ("a wrong token shows the page is not connected", test.check_wrong_token),
    ]
    try:
        for number, (name, check) in enumerate(checks, 1):
            test.run(number, name, check)
    finally:
        test.close()
    print(f"{test.passed} passed, {test.failed} failed", flush=True)
    sys.exit(1 if test.failed else 0)


if __name__ == "__main__":
    main()
