"""Every model that holds part of a study is in the backup format, with every field; a model or field added
later fails here until it is carried (corpus/backup_format.py, README) or listed below with the reason."""
from __future__ import annotations

from django.apps import apps

from corpus.backup import VERSION
from corpus.backup_format import FORMATS

APPS = {"ingest", "taxonomy", "annotation", "agreement", "interviews", "machines", "codebook", "findings", "webhooks"}

# Models of the domain apps that a backup does not carry, and why (the README says the same).
NOT_CARRIED = {
    "ingest.ingestrun": "how a source was fetched or imported, not part of the study",
    "ingest.summarybatch": "how summaries were made; the summaries themselves are carried",
    "annotation.invitation": "invitation links are credentials",
    "ingest.historicalscreeningvote": "earlier versions of screening votes (the votes themselves are carried)",
    "ingest.historicalsummaryreview": "earlier versions of summary reviews (the reviews themselves are carried)",
    "machines.measurement": "figures a worker computes again from the carried labels and machine labels",
    "agreement.plan": "the planner's simulations, which a worker computes again from the carried labels",
    "webhooks.webhook": "an address outside the study and its signing secret, a credential of this installation",
    "webhooks.webhookdelivery": "messages sent to such an address, not part of the study",
}

# Fields that are not values of their own: primary keys, a study's members (its Membership rows are carried),
# the study's current round (written beside its fields, once the rounds exist); and a credential.
NOT_FIELDS = {"id", "history_id", "annotation.study.members", "annotation.study.current_round",
              "machines.machinerater.api_key",  # a credential of the rater's own endpoint: never leaves the server
              "machines.machinerun.worker",
              # Whether members must sign in through a provider: the installation's providers, not the study's data.
              "annotation.study.sso_required"}  # the worker that ran it names a host of this installation


def _fields(model) -> set[str]:
    names = {f.name for f in model._meta.concrete_fields} | {f.name for f in model._meta.many_to_many}
    label = model._meta.label_lower
    return {n for n in names if n not in NOT_FIELDS and f"{label}.{n}" not in NOT_FIELDS}


def test_every_model_of_a_study_is_carried_or_listed_with_its_reason():
    kinds = FORMATS[VERSION]
    models = {m._meta.label_lower: m for m in apps.get_models() if m._meta.app_label in APPS}
    missing = sorted(set(models) - set(kinds) - set(NOT_CARRIED))
    assert not missing, f"not in the backup format version {VERSION}, nor listed as not carried: {missing}"
    assert not sorted(set(NOT_CARRIED) & set(kinds)), "listed as not carried, yet in the format"
    assert not sorted(set(NOT_CARRIED) - set(models)), "listed as not carried, yet no such model"


def test_every_field_of_a_carried_model_is_in_its_record():
    kinds = FORMATS[VERSION]
    for label, spec in kinds.items():
        if label == "auth.user":
            continue  # users travel as names only, on purpose
        model = apps.get_model(label)
        declared = set(spec.fields) | set(spec.fk) | set(spec.m2m)
        assert _fields(model) <= declared | {"id"}, f"{label}: {sorted(_fields(model) - declared)} not carried"
        assert declared - {"id"} <= _fields(model) | {f.name for f in model._meta.concrete_fields}, \
            f"{label}: {sorted(declared - _fields(model))} are not fields of the model"
