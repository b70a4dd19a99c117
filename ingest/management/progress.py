"""A terminal progress bar over an IngestRun's counts, for the ingest commands."""
from __future__ import annotations

from tqdm import tqdm


class RunProgress:
    def __init__(self, stream, unit: str = "issue"):
        # Django's OutputWrapper ends every write with a newline (and colours stderr): tqdm redraws its line with
        # "\r", so it writes to the stream underneath, or each redraw would be a new line.
        self.bar = tqdm(total=None, unit=unit, file=getattr(stream, "_out", stream), dynamic_ncols=True,
                        mininterval=0.5)

    def __call__(self, run) -> None:
        if run.total and self.bar.total != run.total:
            self.bar.total = run.total
        self.bar.n = run.fetched
        self.bar.set_postfix_str(
            f"new {run.created}, updated {run.updated}, unchanged {run.unchanged}, "
            f"PRs skipped {run.skipped_pull_requests}, "
            f"filtered out {run.filtered_out}, errors {run.errors}",
            refresh=False,
        )
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()
