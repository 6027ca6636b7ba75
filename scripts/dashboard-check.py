#!/usr/bin/env python3
"""Loads a page of the hub's dashboard in headless Chromium (Debian's chromium and chromedriver,
driven by Selenium), saves a screenshot, runs axe-core (the copy in PyPI's axe-playwright-python)
and checks keyboard focus. Prints one JSON object: the title, the images (alt text, whether they
loaded), the first elements Tab reaches, and axe's violations. Used by Tests/MemoraHubTests.

    dashboard-check.py URL SCREENSHOT.png [CLICK]

With CLICK (a CSS selector), the element is clicked once the page has loaded (a form's button), and
the page it leads to is the one checked.
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
    click = sys.argv[3] if len(sys.argv) > 3 else None
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1600",
                     "--hide-scrollbars", "--force-device-scale-factor=1", "--no-first-run", "--disable-extensions"]:
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
        print(json.dumps({"title": driver.title, "images": images, "focus": focus, "axe": result}))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
