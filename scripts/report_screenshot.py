"""The screenshot of docs/reports.md: the bundled demo's comparison page (compare -o) in
Debian's headless Chromium, from its summary down. Run from the repository's root:

    python scripts/report_screenshot.py docs/img/report.png
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from trecbench.cli import run

RUNS = ["runs/tfidf-word.run", "runs/tfidf-char.run", "runs/tfidf-word-parents.run"]


def main(target: str) -> None:
    out = Path(tempfile.mkdtemp(prefix="trecbench-report-"))
    args = ["compare", "qrels/hpo-demo.qrels", *RUNS, "-m", "nDCG@10", "-m", "MRR@10"]
    assert run([*args, "-o", str(out), "--quiet"]) == 0
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 "--disable-background-networking", "--window-size=1280,2400",
                 f"--user-data-dir={tempfile.mkdtemp()}"):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get((out / "report.html").as_uri())
        time.sleep(1.5)  # Bokeh draws once its document is idle
        driver.execute_script("document.getElementById('summary').scrollIntoView()")
        driver.save_screenshot(target)
    finally:
        driver.quit()


if __name__ == "__main__":
    main(sys.argv[1])
