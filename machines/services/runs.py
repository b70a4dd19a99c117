"""A machine rater's run: queued → running → succeeded | failed, its labels written as it goes, its progress and
a heartbeat on its row. A run is idempotent: started again it replaces its own labels, and a language model's
answers come from the call cache, so a re-run after a crash costs no new calls for what was answered."""
from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.db import connection, transaction
from django.db.models.functions import Left

from concord import jobs
from concord.errors import FieldError
from integrations.chat import CallFailed, ChatClient, EndpointDown, EndpointRefused
from integrations.endpoints import NoSuchEndpoint, endpoint_for

from ..classifier import DEFAULT_FEATURES, FEATURES, features, rate_rows_sure, right_pair
from ..classifier import MODEL as CLASSIFIER_MODEL
from ..classifier import Settings as ClassifierSettings
from ..measures import calibration
from ..models import LlmCall, MachineLabel, MachineRater, MachineRun
from ..prompt import PROMPT_VERSION, Node, Unparseable, parse_answer, system_prompt, user_prompt
from ..selectors import panel, training_labels

WRITE_BATCH = 5000
DOWN_AFTER = 3  # reports in a row without any answer: the endpoint is down, stop and say so
PROGRESS_EVERY = 10


class RunError(FieldError):
    pass


def start_run(rater: MachineRater, *, by=None, expected_latest: int | None = None, send: bool = True) -> MachineRun:
    """Queue a run. `expected_latest` is the id of the rater's newest run the person saw (0: none), so that a
    double click or two people at once start one run, not two. With send=False the caller runs it itself."""
    with transaction.atomic():
        MachineRater.objects.select_for_update().filter(pk=rater.pk).first()
        newest = rater.runs.order_by("-pk").values_list("pk", "status").first()
        if expected_latest is not None and (newest[0] if newest else 0) != expected_latest:
            raise RunError("expected", "someone started a run of this rater meanwhile; the page now shows it")
        if newest and newest[1] in {MachineRun.Status.QUEUED, MachineRun.Status.RUNNING}:
            raise RunError("expected", "a run of this rater is still going; wait for it to finish")
        run = MachineRun.objects.create(rater=rater, created_by=by, settings=rater.settings)
        if send:
            jobs.enqueue(run, rate_task)
    return run


def _finish(run: MachineRun, status: str, message: str) -> None:
    jobs.finish(run, status, message, fields=("done", "cached", "unparseable", "failed"))


def interrupt_stale(stale_after: float | None = None) -> int:
    """Runs whose heartbeat stopped (their worker was killed) are marked failed, with why; their labels stay
    until a new run replaces them, but only a succeeded run is a rater's labels of record."""
    return jobs.interrupt_stale(
        MachineRun, lambda _: ("Run it again: answers already received come from the cache.", {}), stale_after)


def run(run: MachineRun) -> MachineRun:
    rater = run.rater
    run.started_at = None  # a run taken again (its worker was killed) starts again from nothing
    jobs.start(run, message="", done=0, cached=0, unparseable=0, failed=0)
    MachineLabel.objects.filter(run=run).delete()
    issues = rater.study.issues.order_by("pk")
    run.total = issues.count() * rater.runs_per_report
    MachineRun.objects.filter(pk=run.pk).update(total=run.total)
    try:
        if rater.kind == MachineRater.Kind.BUILTIN:
            _run_builtin(run, issues)
        else:
            _run_llm(run, list(issues.values_list("pk", "title", "body")))
    except Exception as exc:
        _finish(run, MachineRun.Status.FAILED, f"stopped by an unexpected error: {exc.__class__.__name__}: {exc}")
        raise
    return run


def _run_builtin(run: MachineRun, issues) -> None:
    rater = run.rater
    labels = training_labels(rater.study, panel(rater.study), rater.training)
    options = ClassifierSettings(folds=run.settings.get("folds", 5), seed=run.settings.get("seed", 0),
                                 **FEATURES[run.settings.get("features", DEFAULT_FEATURES)])
    run.model_reported = CLASSIFIER_MODEL
    MachineRun.objects.filter(pk=run.pk).update(model_reported=run.model_reported)
    ids: list[int] = []

    def texts():
        # Streamed into the features a chunk at a time, and no more of a body than the model reads: a million
        # reports' text would be gigabytes held at once.
        for pk, title, body in issues.values_list("pk", "title", Left("body", options.text_chars)).iterator(2000):
            ids.append(pk)
            yield f"{title}\n{body or ''}"

    x = features(texts(), options)

    def progress(done: int, folds: int) -> None:
        jobs.beat(run)
        MachineRun.objects.filter(pk=run.pk).update(message=f"training and rating fold {min(done + 1, folds)} of "
                                                            f"{folds}")

    made = rate_rows_sure(x, [labels.get(pk) for pk in ids], options, progress)
    rated, sure = made.labels, made.sure
    del x
    run.calibration = calibration([(p, right_pair(chain, labels[pk]))
                                   for pk, chain, p in zip(ids, rated, sure, strict=True)
                                   if p is not None and pk in labels])
    MachineRun.objects.filter(pk=run.pk).update(calibration=run.calibration)
    rows = [MachineLabel(run=run, issue_id=pk, type_code=chain[0], theme_code=chain[1] or "",
                         sub_theme_code=chain[2] or "", confidence=p, type_confidence=q)
            for pk, chain, p, q in zip(ids, rated, sure, made.sure_of_type, strict=True) if chain is not None]
    for start in range(0, len(rows), WRITE_BATCH):
        MachineLabel.objects.bulk_create(rows[start:start + WRITE_BATCH])
        jobs.beat(run, done=min(len(rows), start + WRITE_BATCH))
    if connection.vendor == "postgresql":
        # An export reads a run's labels a chunk of reports at a time. Planned on statistics from before the run
        # (autovacuum's ANALYZE comes up to a minute later), each chunk's look-up walked every label of the run:
        # the replication package of 160,000 reports took 200 s right after a run, 142 s once analysed.
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {MachineLabel._meta.db_table}")
    unrated = len(ids) - len(rows)
    run.done = len(rows)
    _finish(run, MachineRun.Status.SUCCEEDED,
            f"{len(rows):,} reports rated, cross-fitted in {options.folds} folds on {len(labels):,} labeled reports"
            + (f"; {unrated:,} not rated (no labeled report in the other folds)" if unrated else ""))


def codebook_nodes(rater: MachineRater) -> list[Node]:
    from taxonomy.models import Category  # deferred: only the language-model path reads the codebook's text

    rows = Category.objects.filter(codebook=rater.study.codebook_id, retired_at__isnull=True).order_by(
        "position", "code").values_list("code", "level", "parent__code", "name", "definition", "inclusion",
                                        "exclusion")
    return [Node(*row) for row in rows]


def call_key(study_id: int, settings_: dict, prompt_hash: str, user: str, attempt: int) -> str:
    """What an answer depends on; equal keys share one answer (the cache). The study is part of it: an answer
    one study holds, restored from a file or made by its raters, is never read by another study's raters."""
    parts = [study_id, settings_.get("endpoint") or settings_.get("base_url"), settings_.get("model"),
             settings_.get("temperature"), settings_.get("seed"), prompt_hash,
             hashlib.sha256(user.encode()).hexdigest(), attempt]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def _run_llm(run: MachineRun, issues: list[tuple[int, str, str]]) -> None:
    rater = run.rater
    options = run.settings
    nodes = codebook_nodes(rater)
    system = system_prompt(nodes)
    prompt_hash = hashlib.sha256(system.encode()).hexdigest()
    run.prompt, run.prompt_hash, run.prompt_version = system, prompt_hash, PROMPT_VERSION
    run.save(update_fields=["prompt", "prompt_hash", "prompt_version"])
    try:
        endpoint = endpoint_for(options, rater.api_key)
    except NoSuchEndpoint as exc:
        _finish(run, MachineRun.Status.FAILED, f"not run: {exc}")
        return
    client = ChatClient(endpoint.base_url, options["model"], agent="concord-machine-rater", api_key=endpoint.api_key,
                        timeout=settings.LLM_TIMEOUT_SECONDS, attempts=settings.LLM_ATTEMPTS,
                        backoff=settings.INGEST_HTTP_BACKOFF_SECONDS, guard=endpoint.guard)
    down_in_a_row, stopped, seen, refused = 0, "", 0, False
    for issue_id, title, body in issues:
        user = user_prompt(title, body)
        any_answer = False
        for attempt in range(rater.runs_per_report):
            outcome = _rate_once(run, client, nodes, system, prompt_hash, user, issue_id, attempt)
            refused = outcome == "refused"
            if refused:  # nothing was sent, and nothing would be: stop at once
                break
            any_answer |= outcome != "down"
            seen += 1
            if seen % PROGRESS_EVERY == 0:
                jobs.beat(run, done=run.done, cached=run.cached, unparseable=run.unparseable, failed=run.failed)
        down_in_a_row = 0 if any_answer else down_in_a_row + 1
        if refused or down_in_a_row >= DOWN_AFTER:
            last = LlmCall.objects.filter(rater=rater).order_by("-pk").values_list("failure", flat=True).first()
            why = "was refused" if refused else f"gave no answer for {DOWN_AFTER} reports in a row"
            stopped = f"stopped: the endpoint {why} ({last}); {run.total - seen:,} ratings not tried. "
            break
    status = MachineRun.Status.FAILED if stopped else MachineRun.Status.SUCCEEDED
    _finish(run, status, stopped + f"{run.done:,} labels: {run.done - run.cached:,} from new calls, "
                                   f"{run.cached:,} from the cache; {run.unparseable:,} answers unparseable, "
                                   f"{run.failed:,} calls failed")


def _rate_once(run: MachineRun, client: ChatClient, nodes: list[Node], system: str, prompt_hash: str, user: str,
               issue_id: int, attempt: int) -> str:
    """One label of one report: 'cached', 'made', 'unparseable', 'failed' or 'down'."""
    rater, options = run.rater, run.settings
    key = call_key(rater.study_id, options, prompt_hash, user, attempt)
    # Any call that got an answer, refusals included; a call that got none (refused connection, timeout, 5xx
    # after every retry) is asked again.
    call = LlmCall.objects.filter(key=key, rater__study=rater.study_id, seconds__isnull=False).order_by("pk").first()
    outcome = "cached"
    if call is None:
        call = LlmCall(rater=rater, issue_id=issue_id, attempt=attempt, key=key, prompt_hash=prompt_hash,
                       model=options["model"])
        try:
            reply = client.complete(system, user, temperature=options.get("temperature"), seed=options.get("seed"))
        except CallFailed as exc:
            call.failure = str(exc)[:2000]
            call.save()
            run.failed += 1
            MachineLabel.objects.create(run=run, issue_id=issue_id, attempt=attempt, unparseable=True, call=call)
            return "refused" if isinstance(exc, EndpointRefused) else "down" if isinstance(exc, EndpointDown) \
                else "failed"
        call.answer, call.model_reported, call.seconds = reply.content, reply.model, reply.seconds
        call.prompt_tokens, call.completion_tokens = reply.prompt_tokens, reply.completion_tokens
        if reply.refusal or not reply.content:
            call.failure = f"refused: {reply.refusal[:500]}" if reply.refusal else "an empty answer"
        call.save()
        outcome = "made"
    if call.model_reported and not run.model_reported:
        run.model_reported = call.model_reported
        MachineRun.objects.filter(pk=run.pk).update(model_reported=call.model_reported)
    run.done += 1
    run.cached += outcome == "cached"
    try:
        if call.failure:
            raise Unparseable(call.failure)
        chain = parse_answer(call.answer, nodes)
    except Unparseable:
        run.unparseable += 1
        MachineLabel.objects.create(run=run, issue_id=issue_id, attempt=attempt, unparseable=True, call=call)
        return "unparseable"
    MachineLabel.objects.create(run=run, issue_id=issue_id, attempt=attempt, type_code=chain[0],
                                theme_code=chain[1] or "", sub_theme_code=chain[2] or "", call=call)
    return outcome


def rate(run_id: int) -> dict:
    """The task's work: rate a study's reports with one machine rater; the run's row holds progress and outcome."""
    done = run(MachineRun.objects.select_related("rater__study").get(pk=run_id))
    return {"run": done.pk, "status": done.status}


# In a child process the worker ends when idle: the built-in model loads scikit-learn and the statistics.
# Acknowledged late (the settings' default): a worker killed mid-run gives the run back to the queue, and the
# re-run takes what was answered from the call cache.
rate_task = jobs.task(rate, queue="statistics", apart_from_worker=True, job=MachineRun)
