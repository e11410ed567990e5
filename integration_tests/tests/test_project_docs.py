"""Statistics in dbt docs, end to end: build and analyze the project, `dbt-analyze docs generate`,
`dbt docs serve` on localhost, and headless Chromium (Debian's package) renders the pages.

Runs after test_project.py (file order), whose build it reuses when there."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PROJECT, TARGET, table_stats

OUTPUT = PROJECT / "test-output"
ORDERS = "model.dbt_analyze_integration_tests.orders"
NEVER = "model.dbt_analyze_integration_tests.never_analyzed"
SUMMARY = "model.dbt_analyze_integration_tests.purchases_enriched_summary"


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found and shutil.which("apt-get") and os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, capture_output=True)
        found = shutil.which("chromium")
    assert found, "the docs test needs Chromium: apt-get install chromium"
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def site(spark, dbt):
    from dbt_analyze.docs import main

    if not spark.catalog.tableExists("analytics_stats.table_statistics") or not table_stats(spark, "analytics.orders"):
        result = dbt("build", "--vars", "{events_day: 1}")
        assert result.success, result.error
    for _ in range(2):  # three runs of orders at least: its page shows their history
        analyzed = dbt("run-operation", "analyze_table", "--args", "{relation: orders, columns: all, full: true}")
        assert analyzed.success, analyzed.error
    estimated = dbt("run-operation", "estimate_statistics", "--args", "{select: [purchases_enriched, purchases_enriched_summary]}")
    assert estimated.success, estimated.error
    assert main(["docs", "generate", "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT)]) == 0
    port = free_port()
    server = subprocess.Popen([str(Path(sys.executable).parent / "dbt"), "docs", "serve", "--port", str(port), "--no-browser",
                               "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                              env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"})
    deadline = time.time() + 60
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.5)
    else:
        pytest.fail("dbt docs serve did not listen")
    yield f"http://127.0.0.1:{port}/"
    os.killpg(server.pid, 15)
    server.wait(timeout=30)


def render(url: str, screenshot: Path | None = None) -> str:
    """The page's DOM after its scripts ran (and loaded the manifest and catalog)."""
    command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--virtual-time-budget=20000"]
    if screenshot:
        subprocess.run(command + [f"--screenshot={screenshot}", "--window-size=1400,2600", "--hide-scrollbars", url],
                       check=True, capture_output=True, timeout=180)
    done = subprocess.run(command + ["--dump-dom", url], check=True, capture_output=True, text=True, timeout=180)
    return done.stdout


# The rendered description (the page also holds every model's raw description in its hidden search list).
SECTION = re.compile(r"<h3[^>]*>Statistics \(dbt_analyze\)</h3>")


def test_an_analyzed_models_page_shows_its_statistics_and_histograms(site):
    OUTPUT.mkdir(exist_ok=True)
    screenshot = OUTPUT / "docs-orders.png"
    dom = render(f"{site}#!/model/{ORDERS}", screenshot)
    assert re.search(r"<h1>\s*<span[^>]*>orders</span>", dom)
    section = dom[SECTION.search(dom).start():]
    assert re.search(r"<strong>Rows</strong> 7 ", section)
    assert re.search(r"<td>amount</td>\s*<td>decimal\(10,2\)</td>\s*<td[^>]*>14\.3</td>", section)  # null % of amount
    assert re.search(r'<img src="data:image/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="histogram of amount"', section)
    assert "Top values: shipped (4), pending (2), cancelled (1)" in section
    for picture in ("row count history", "null fraction history of amount", "distinct count history of amount"):
        assert re.search(r'<img src="data:image/svg\+xml;base64,[A-Za-z0-9+/=]+" alt="' + picture + '"', section), picture
    assert screenshot.stat().st_size > 50_000


def test_a_never_analyzed_models_page_is_unchanged(site):
    dom = render(f"{site}#!/model/{NEVER}")
    assert re.search(r"<h1>\s*<span[^>]*>never_analyzed</span>", dom)  # its page is the one shown
    assert not SECTION.search(dom) and 'alt="histogram of' not in dom


def test_an_estimated_models_page_shows_its_estimates_marked_as_such(site, spark):
    dom = render(f"{site}#!/model/{SUMMARY}")
    assert re.search(r"<h1>\s*<span[^>]*>purchases_enriched_summary</span>", dom)
    # (when test_estimates.py ran first, the model was analyzed too: its measured section comes first)
    section = dom[re.search(r"<h3[^>]*>Estimated statistics \(dbt_analyze\)</h3>", dom).start():]
    assert "not measured" in section
    # md5 of a column: 32 characters, accurate, traced to the nearest measured input: purchases.customer, or
    # purchases_enriched.customer_md5 itself when test_estimates.py analyzed that model first
    assert re.search(r"<td>customer_md5</td>\s*<td>string</td>\s*<td>accurate</td>", section)
    nearest = ("analytics.purchases_enriched.customer_md5" if table_stats(spark, "analytics.purchases_enriched")
               else "analytics.purchases.customer")
    row = re.search(r"<tr>\s*<td>customer_md5</td>.*?</tr>", section, re.S).group(0)
    assert nearest in row, row


def test_the_overview_lists_every_analyzed_table(site):
    dom = render(f"{site}#!/overview")
    overview = dom[re.search(r"<h2[^>]*>Statistics \(dbt_analyze\)</h2>", dom).start():]
    assert re.search(r"<td>analytics\.orders</td>\s*<td[^>]*>7</td>", overview)
    assert "<td>analytics.events</td>" in overview


def test_catalog_row_counts_come_from_our_statistics(site):
    catalog = json.loads((TARGET / "catalog.json").read_text())
    stats = catalog["nodes"][ORDERS]["stats"]
    assert stats["rows"]["value"] == 7 and stats["rows"]["include"]
    assert "dbt_analyze_collected_at" in stats
    assert "dbt_analyze_collected_at" not in catalog["nodes"][NEVER]["stats"]
    manifest = json.loads((TARGET / "manifest.json").read_text())
    assert "Statistics (dbt_analyze)" not in manifest["nodes"][NEVER]["description"]
