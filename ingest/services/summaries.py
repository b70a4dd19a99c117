"""Making summaries in batches: cached by content, failures recorded one by one, the batch goes on."""
from __future__ import annotations

from django.db.models import Exists, OuterRef

from concord import jobs

from ..models import Issue, Source, Summary, SummaryBatch
from ..sql import latest_summary
from ..summaries import content_hash, summariser_from_settings
from ..summaries.extractive import summarise_text
from ..summaries.openai_compat import EndpointDown, SummaryError

PROGRESS_EVERY = 10
# After this many issues in a row got no answer at all, the endpoint is down: the batch stops and says so,
# instead of spending every retry on every remaining issue (hours for a study's corpus).
DOWN_AFTER = 3


def start_summary_batch(source: Source, user=None, summariser=None) -> SummaryBatch:
    """A batch of the source's missing summaries, handed to a worker."""
    summariser = summariser or summariser_from_settings()
    batch = SummaryBatch.objects.create(source=source, backend=summariser.name, model=summariser.model,
                                        prompt_version=summariser.prompt_version, created_by=user)
    return jobs.enqueue(batch, summarise_task)


def _missing(batch: SummaryBatch):
    done = Summary.objects.filter(issue=OuterRef("pk"), backend=batch.backend, model=batch.model,
                                  prompt_version=batch.prompt_version, status=Summary.Status.OK)
    return batch.source.issues.filter(kept=True).exclude(Exists(done)).order_by("pk")


def _cached(batch: SummaryBatch, digest: str) -> Summary | None:
    return Summary.objects.filter(content_hash=digest, backend=batch.backend, model=batch.model,
                                  prompt_version=batch.prompt_version, status=Summary.Status.OK).first()


def summarise_issue(batch: SummaryBatch, summariser, issue: Issue) -> str:
    """Make (or reuse) one issue's summary; 'made', 'cached', 'failed', or 'down' (no answer: recorded as failed)."""
    digest = content_hash(issue.title, issue.body)
    key = {"issue": issue, "backend": batch.backend, "model": batch.model, "prompt_version": batch.prompt_version}
    cached = _cached(batch, digest)
    if cached is not None:
        Summary.objects.update_or_create(**key, defaults={
            "content_hash": digest, "text": cached.text, "verdict": cached.verdict, "reason": cached.reason,
            "status": Summary.Status.OK, "error": ""})
        return "cached"
    terms = set(issue.matched_keywords.values_list("term", flat=True))
    try:
        result = summariser.summarise(issue.title, issue.body, terms, issue.source.is_filtered)
    except SummaryError as exc:
        Summary.objects.update_or_create(**key, defaults={
            "content_hash": digest, "status": Summary.Status.FAILED, "error": str(exc)})
        return "down" if isinstance(exc, EndpointDown) else "failed"
    Summary.objects.update_or_create(**key, defaults={
        "content_hash": digest, "text": result.text, "verdict": result.verdict, "reason": result.reason,
        "status": Summary.Status.OK, "error": ""})
    return "made"


def run_summary_batch(batch: SummaryBatch, summariser=None) -> SummaryBatch:
    """Summarise every kept issue of the source that has no summary of this backend, model and prompt yet."""
    summariser = summariser or summariser_from_settings()
    issues = list(_missing(batch).select_related("source"))
    jobs.start(batch, total=len(issues))
    counts = {"made": 0, "cached": 0, "failed": 0}
    down_in_a_row, stopped = 0, ""
    for i, issue in enumerate(issues, start=1):
        outcome = summarise_issue(batch, summariser, issue)
        down_in_a_row = down_in_a_row + 1 if outcome == "down" else 0
        counts["failed" if outcome == "down" else outcome] += 1
        if i % PROGRESS_EVERY == 0 or i == len(issues) or down_in_a_row >= DOWN_AFTER:
            jobs.beat(batch, **counts)
        if down_in_a_row >= DOWN_AFTER:
            stopped = (f"stopped: the endpoint gave no answer for {DOWN_AFTER} issues in a row "
                       f"({_error_of(issue, batch)}); {len(issues) - i} issues not tried. ")
            break
    for field, value in counts.items():
        setattr(batch, field, value)
    message = stopped + f"{counts['made']} made, {counts['cached']} from the cache, {counts['failed']} failed"
    if counts["failed"] and not stopped:
        first = Summary.objects.filter(issue__source=batch.source, backend=batch.backend,
                                       status=Summary.Status.FAILED).values_list("error", flat=True).first()
        message += f"; the first failure: {first}"
    jobs.finish(batch, SummaryBatch.Status.FAILED if stopped else SummaryBatch.Status.SUCCEEDED, message,
                fields=tuple(counts))
    return batch


def summarise(batch_id: int) -> None:
    """The task's work: summarise a source's kept issues; the batch row holds progress and outcome."""
    run_summary_batch(SummaryBatch.objects.select_related("source").get(pk=batch_id))


summarise_task = jobs.task(summarise, queue="summaries", job=SummaryBatch)


def _error_of(issue: Issue, batch: SummaryBatch) -> str:
    return Summary.objects.filter(issue=issue, backend=batch.backend, model=batch.model,
                                  prompt_version=batch.prompt_version).values_list("error", flat=True).first() or ""


def summary_for_display(issue: Issue, made: Summary | None = None) -> str:
    """What an annotator reads first: a made summary if there is one, else the built-in one, made now
    (it is instant), so a page never waits for a batch."""
    made = made or latest_summary(issue)
    return made.text if made else summarise_text(issue.title, issue.body)
