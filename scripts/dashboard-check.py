#!/usr/bin/env python3
"""Loads a page of the hub's dashboard in headless Chromium (Debian's chromium and chromedriver,
driven by Selenium), saves a screenshot, runs axe-core (the copy in PyPI's axe-playwright-python)
and checks keyboard focus. Prints one JSON object: the title, the images (alt text, whether they
loaded), the first elements Tab reaches, and axe's violations. Used by Tests/MemoraHubTests.

    dashboard-check.py URL SCREENSHOT.png [CLICK] [--play]

With CLICK (a CSS selector), the element is clicked once the page has loaded (a form's button), and
the page it leads to is the one checked. With --play, the page's player (#player, muted) is played
until its time moves (at most 20 s, for a busy machine), then sought to its middle: the report's
"player" says whether it played and sought.
"""
import importlib.util
import json
import pathlib
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.expected_conditions import staleness_of
from selenium.webdriver.support.ui import WebDriverWait


def axe_source():
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("axe-core is missing: pip install --no-deps axe-playwright-python (scripts/install-browser-check.sh)")
    return (pathlib.Path(list(spec.submodule_search_locations)[0]) / "axe.min.js").read_text()


def main():
    url, screenshot = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    play = "--play" in rest
    click = next((argument for argument in rest if argument != "--play"), None)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1600",
                     "--hide-scrollbars", "--force-device-scale-factor=1", "--no-first-run", "--disable-extensions",
                     "--autoplay-policy=no-user-gesture-required", "--mute-audio"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.set_page_load_timeout(60)
        driver.get(url)
        if click:
            before = driver.find_element("css selector", "html")
            driver.find_element("css selector", click).click()
            WebDriverWait(driver, 30).until(staleness_of(before))
        driver.execute_script("return Promise.all(Array.from(document.images).map(i => i.complete ? 1 : new Promise(r => { i.onload = i.onerror = r; })))")
        player = None
        if play:
            driver.set_script_timeout(60)
            player = driver.execute_async_script(
                "const done = arguments[arguments.length - 1]; const e = document.getElementById('player');"
                "if (!e) { done({error: 'no #player'}); return; } e.muted = true;"
                "const ready = e.readyState >= 1 ? Promise.resolve() : new Promise((r, f) => { e.onloadedmetadata = r; e.onerror = () => f(e.error ? e.error.message || 'media error ' + e.error.code : 'error'); });"
                "const moving = () => new Promise(r => { const start = Date.now(); const check = () => (e.currentTime > 0.2 || Date.now() - start > 20000) ? r() : setTimeout(check, 100); check(); });"
                "ready.then(() => e.play()).then(moving)"
                ".then(() => { const played = e.played.length > 0 && e.currentTime > 0; const at = e.currentTime;"
                " return new Promise(r => { e.onseeked = () => r({played, playedTo: at, seeked: true, seekedTo: e.currentTime, duration: e.duration}); e.pause(); e.currentTime = e.duration / 2; }); })"
                ".then(done).catch(error => done({error: String(error)}));")
        driver.save_screenshot(screenshot)
        images = driver.execute_script(
            "return Array.from(document.images).map(i => ({alt: i.getAttribute('alt'), loaded: i.complete && i.naturalWidth > 0, src: i.getAttribute('src')}))")
        focus = []
        for _ in range(4):
            ActionChains(driver).send_keys(Keys.TAB).perform()
            focus.append(driver.execute_script(
                "const e = document.activeElement; return {tag: e.tagName.toLowerCase(), text: e.textContent.trim().slice(0, 60), href: e.getAttribute('href')}"))
        driver.execute_script(axe_source())
        result = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})"
            ".then(r => done({violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length})),"
            " passes: r.passes.length, version: r.testEngine.version})).catch(e => done({error: String(e)}));")
        print(json.dumps({"title": driver.title, "images": images, "focus": focus, "axe": result, "player": player}))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
