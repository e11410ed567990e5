"""What the post-hook adds to a whole `dbt build`, each build a fresh process as users run it.

    make bench-cost        # runs bench/run_cost.py, then this
    python bench/build_cost.py --rounds 3

Two projects: bench/cost_project (a dozen small table models) and bench/mart_project (a dozen
table models over about 1.3M rows, staged, joined and aggregated as a small mart). Each is built
with no post-hook, with Spark's own `ANALYZE ... FOR ALL COLUMNS` as the post-hook, with the
least hook that keeps mergeable statistics in a table (a floor under any design:
bench/cost_hooks/macros/floor_hook.sql), with `analyze()` (statistics beside the build),
`analyze(wait=true)` (in the hook) and `analyze(sketches='basic')`, at `--threads 1` and
`--threads 4`, builds interleaved round by round. What a hook adds is the median of its builds
less the median of the builds without one, in two measures: the whole process, as users wait for
it, and the build's models and hooks (from its first model's start to the end of its last hook,
read from dbt's log), which leaves out the process's start (the JVM, dbt's parse, the seeds): no
hook changes that part, and it varies most from build to build. The projects' profiles run the
driver's JVM with the JIT's quick compiler alone and its whole heap from the start, as
docs/RUNNING.md recommends for a dbt process. The rounds start from a compacted statistics storage
(`compact_statistics`), and each hook's builds keep a target directory of their own, so they parse
the project partially as a user's next build does (its `--vars` differ from the other hooks').
Results: bench/out/build_cost.json and the section of BENCHMARKS.md between its markers.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import datasets  # noqa: E402
PROJECTS = {"cost_project": "12 small table models", "mart_project": "12 table models over 1.3M rows"}
THREADS = (1, 4)
HOOKS = ("none", "spark", "least", "ours", "wait", "basic")
MEASURES = ("seconds", "models_and_hooks")
LABELS = {"none": "no hook", "spark": "Spark's ANALYZE", "ours": "`analyze()`", "wait": "`analyze(wait=true)`",
          "basic": "`analyze(sketches='basic')`",
          "least": "the least hook that keeps sketches in a table (floor)"}


def build(project: str, threads: int, hook: str, home: Path, setup: bool = False) -> dict:
    """One `dbt build` in a new process (a JVM of its own): {"seconds": the process's,
    "models_and_hooks": its first model's start to its last hook's end, from its log}; `setup`
    creates the tables the floor's hook writes (bench/cost_hooks/macros/floor_hook.sql)."""
    logs = _logs(project, home)
    shutil.rmtree(logs, ignore_errors=True)  # this build's log alone
    started = time.perf_counter()
    dbt(project, home, "build", "--threads", str(threads), *_hook_args(hook, setup), target=hook)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "models_and_hooks": models_and_hooks((logs / "dbt.log").read_text())}


def dbt(project: str, home: Path, *args: str, target: str = "") -> None:
    """A dbt command in bench/<project>, its metastore, tables, target and logs under `home`; a
    `target` directory of its own where its --vars differ from other commands' (dbt parses the
    whole project anew when they change, which a user's repeated builds do not)."""
    directory = ROOT / "bench" / project
    env = {**os.environ, "DBT_ANALYZE_HOME": str(home), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
           "DBT_ANALYZE_LOG4J2": str(ROOT / "integration_tests" / "log4j2.properties"),
           "DBT_TARGET_PATH": str(home / project / "target" / target), "DBT_LOG_PATH": str(_logs(project, home))}
    command = [str(Path(sys.executable).parent / "dbt"), *args, "--project-dir", str(directory),
               "--profiles-dir", str(directory)]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"dbt {' '.join(args)} in {project} failed:\n{done.stdout[-3000:]}")


def _hook_args(hook: str, setup: bool = False) -> list[str]:
    return ["--vars", json.dumps({"cost_hook": hook, "floor_setup": setup})]


def _logs(project: str, home: Path) -> Path:
    return home / project / "logs"


def models_and_hooks(log: str) -> float:
    """Seconds from a build's first model's start to the end of its last hook (dbt's `Finished
    running` line), from its dbt.log.

    >>> models_and_hooks("\\x1b[0m23:59:58.500000 [info ] [Thread-1 (]: 1 of 2 START sql table model a.b ...... [RUN]\\n"
    ...                  "00:00:01.000000 [info ] [MainThread]: Finished running 1 table model in 3.0s")
    2.5
    """
    times = []
    for line in re.sub(r"\x1b\[[0-9;]*m", "", log).splitlines():
        if (" START sql " in line and " model " in line and not times) or "Finished running" in line:
            hours, minutes, seconds = line[:15].split(":")
            times.append(int(hours) * 3600 + int(minutes) * 60 + float(seconds))
    return (times[-1] - times[0]) % 86400


def measure(rounds: int, home: Path) -> dict:
    for project in PROJECTS:
        dbt(project, home, "deps")
        build(project, 1, "ours", home)  # the tables and the statistics storage exist before the rounds
        build(project, 1, "least", home, setup=True)  # and the tables the floor's hook writes
        # Each run adds files to the statistics storage, which every later run lists: the rounds start
        # from a compacted storage, as a user's that runs compact_statistics now and then.
        dbt(project, home, "run-operation", "compact_statistics")
        for hook in HOOKS:  # each hook's builds then parse partially, as a user's next build does
            dbt(project, home, "parse", *_hook_args(hook), target=hook)
    seconds: dict = {}
    for round_number in range(rounds):
        for project in PROJECTS:
            for threads in THREADS:
                for hook in HOOKS:
                    took = build(project, threads, hook, home)
                    seconds.setdefault(project, {}).setdefault(str(threads), {}).setdefault(hook, []).append(took)
                    print(f"[{time.strftime('%H:%M:%S')}] round {round_number + 1}: {project} threads {threads} {hook}"
                          f" {took['seconds']:.1f} s, models and hooks {took['models_and_hooks']:.1f} s", flush=True)
    report = {}
    for project, by_threads in seconds.items():
        for threads, by_hook in by_threads.items():
            report.setdefault(project, {})[threads] = {hook: {"runs": runs} for hook, runs in by_hook.items()}
            for measure in MEASURES:
                baseline = statistics.median(run[measure] for run in by_hook["none"])
                for hook, runs in by_hook.items():
                    median = statistics.median(run[measure] for run in runs)
                    report[project][threads][hook][measure] = {"median": median, "added": median - baseline}
    return report


def markdown(report: dict, options, date: str) -> str:
    lines = ["<!-- build_cost:start -->",
             f"## What the post-hook adds to `dbt build` (`python bench/build_cost.py --rounds {options.rounds}`, {date}, "
             f"2 cores, each build a fresh process, medians, interleaved)", "",
             "The package's defaults: `analyze()` runs beside the build, its runs written together once no post-hook has "
             "handed one over for `dbt_analyze_background_linger_seconds` (12 s) or the build ends. Two measures of each "
             "build: the whole process, as users wait for it, and its models and hooks (its first model's start to the "
             "end of its last hook, from dbt's log), without the process's start (the JVM, dbt's parse, the seeds), "
             "which no hook changes and which varies most. The projects' profiles give the driver's JVM the JIT's quick "
             "compiler alone (`-XX:TieredStopAtLevel=1`) and its whole heap from the start (`-Xms1g`), as "
             "[docs/RUNNING.md](docs/RUNNING.md) recommends for a dbt process; the rounds start from a compacted "
             "statistics storage (`compact_statistics`), and each hook's builds parse the project partially, as a "
             "user's next build does; the package's macros are compiled once per machine "
             "([docs/decisions/macro-templates-cached.md](docs/decisions/macro-templates-cached.md)). How single builds vary, and the "
             "probes behind each choice: "
             "[docs/decisions/post-hooks-beside-the-build.md](docs/decisions/post-hooks-beside-the-build.md).", "",
             "| project | threads | hook | build (s) | adds (s) | against Spark's hook "
             "| models and hooks (s) | adds (s) | against Spark's hook |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for project, by_threads in report.items():
        for threads, by_hook in by_threads.items():
            for hook in HOOKS:
                row = [PROJECTS[project], threads, LABELS[hook]]
                for measure in MEASURES:
                    figures, spark_added = by_hook[hook][measure], by_hook["spark"][measure]["added"]
                    if hook == "none":
                        row += [f"{figures['median']:.1f}", "", ""]
                        continue
                    ratio = f"{figures['added'] / spark_added:.2f}x" if spark_added > 0 else ""
                    row += [f"{figures['median']:.1f}", f"{figures['added']:.1f}", ratio]
                lines.append("| " + " | ".join(str(cell) for cell in row) + " |")
    lines += ["", "<!-- build_cost:end -->"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    options = parser.parse_args()
    home = options.out / "build_cost"
    home.mkdir(parents=True, exist_ok=True)
    report = measure(options.rounds, home)
    date = time.strftime("%Y-%m-%d")
    (options.out / "build_cost.json").write_text(json.dumps({"date": date, "projects": report}, indent=1))
    section = markdown(report, options, date)
    datasets.write_section("build_cost", section)
    print(section)


if __name__ == "__main__":
    main()
