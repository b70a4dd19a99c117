"""Benchmark: import a generated corpus into a fresh PostgreSQL database with the study's PyTorch keywords.

    python bench/bench_ingest.py FILE.jsonl [--database-url postgres://postgres@127.0.0.1:5432/concord_bench]

Prints issues per second end to end (check, parse, normalise, match, write) and the peak memory of the
process, beside the floor measured in the same run: the file's lines parsed as JSON and their fields written
with COPY into a bare table (what parsing and the database alone cost), and the import as a multiple of it;
then the CPU seconds of the worker processes, of this process and of its PostgreSQL backend during the import.
The database named in the URL is dropped and created anew.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

from common import DEFAULT_URL, setup_django


def copy_floor(path: str) -> float:
    """Seconds to parse every line and COPY its fields into a table with no index, constraint or history."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE ingest_floor (number text, url text, title text, body text, "
                       "author text, state text, labels text, comments text, created_at text, updated_at text)")
        with cursor.cursor.copy("COPY ingest_floor FROM STDIN") as copy, open(path, "rb") as f:
            for line in f:
                d = json.loads(line)
                row = (d.get("number"), d.get("html_url"), d.get("title"), d.get("body"),
                       (d.get("user") or {}).get("login"), d.get("state"), json.dumps(d.get("labels")),
                       json.dumps(d.get("comments")), d.get("created_at"), d.get("updated_at"))
                # PostgreSQL's text holds no NUL (the importer removes them too).
                copy.write_row([v.replace("\x00", "") if isinstance(v, str) else v for v in row])
        cursor.execute("DROP TABLE ingest_floor")
    return time.perf_counter() - started


def _backend_cpu() -> float | None:
    """CPU seconds of this connection's PostgreSQL backend, where the server runs on this machine."""
    from django.db import connection

    connection.ensure_connection()
    try:
        stat = Path(f"/proc/{connection.connection.info.backend_pid}/stat").read_text()
    except OSError:  # another machine's server, or another system
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    args = parser.parse_args()
    setup_django(args.database_url)

    from ingest.models import Issue, Source
    from ingest.services.files import import_file
    from ingest.services.keywords import SHIPPED_LISTS, load_keyword_list

    keywords = load_keyword_list(SHIPPED_LISTS / "pytorch.json")
    source = Source.objects.create(full_name="bench-org/bench-repo", display_name="PyTorch (bench)",
                                   kind=Source.Kind.FRAMEWORK, keyword_list=keywords)
    size_mb = Path(args.path).stat().st_size / 1e6
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpu_before, backend_before = os.times(), _backend_cpu()
    started = time.perf_counter()
    run = import_file(args.path, source, file_format="jsonl")
    seconds = time.perf_counter() - started
    cpu_after, backend_after = os.times(), _backend_cpu()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worker_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    kept = Issue.objects.filter(source=source, kept=True).count()
    print(f"file            {args.path} ({size_mb:.0f} MB, {run.fetched} issues)")
    print(f"result          {run.message}")
    print(f"kept            {kept} issues matched a PyTorch keyword ({100 * kept / max(run.fetched, 1):.1f} %)")
    print(f"time            {seconds:.1f} s")
    print(f"throughput      {run.fetched / seconds:,.0f} issues/s")
    floor = copy_floor(args.path)
    print(f"floor           {floor:.1f} s to parse the lines and COPY their fields; the import took "
          f"{seconds / floor:.1f}× that")
    print(f"peak memory     {peak:.0f} MB in this process (after start-up: {rss_before:.0f} MB); "
          f"largest worker process {worker_peak:.0f} MB")
    # Where the import's time went: the two cores are shared by the workers, this process and its backend.
    mine = cpu_after.user + cpu_after.system - cpu_before.user - cpu_before.system
    workers = (cpu_after.children_user + cpu_after.children_system
               - cpu_before.children_user - cpu_before.children_system)
    backend = "n/a" if backend_before is None else f"{backend_after - backend_before:.2f} s"
    print(f"CPU             workers {workers:.2f} s, this process {mine:.2f} s, PostgreSQL backend {backend}")


if __name__ == "__main__":
    main()
