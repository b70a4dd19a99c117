"""The replica's router and a person's last write position, without a replica (tests/hosts/test_replica.py runs a
real one): reads go to the replica only inside a stale read that chose it; a write always to the primary; the
replica is never migrated; a cookie that is not a WAL position is ignored."""
from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import RequestFactory

from annotation.models import Label
from concord import replica


def test_only_reads_of_a_stale_read_that_chose_the_replica_go_there():
    router = replica.Router()
    assert router.db_for_read(Label) == "default"
    with replica.reading(replica.Freshness("replica", None)):
        assert router.db_for_read(Label) == "replica"
        assert router.db_for_write(Label) == "default"
    assert router.db_for_read(Label) == "default"
    with replica.reading(replica.Freshness("primary", None)):
        assert router.db_for_read(Label) == "default"
    assert router.allow_migrate("replica", "annotation") is False
    assert router.allow_migrate("default", "annotation") is True


def test_without_a_replica_stale_reads_read_the_primary_as_of_now(settings):
    assert not replica.configured()
    with replica.stale_reads("0/1") as read:
        assert read.source == "primary" and read.as_of is not None


@pytest.mark.parametrize("cookie", ["", "0/1'; DROP TABLE x", "1/2/3", "G/1", "123456789/1", "0/1\x00", "0" * 5000])
def test_a_cookie_that_is_not_a_wal_position_is_ignored(cookie, django_user_model, db):
    user = django_user_model.objects.create_user("wrote")
    request = RequestFactory().get("/", HTTP_COOKIE="")
    request.COOKIES[replica.COOKIE] = cookie
    request.user = user
    cache.delete(replica._user_key(user.pk))
    assert replica.last_write(request) is None


def test_the_furthest_of_cookie_and_cache_is_a_persons_last_write(django_user_model, db):
    user = django_user_model.objects.create_user("wrote-twice")
    request = RequestFactory().get("/")
    request.user = user
    request.COOKIES[replica.COOKIE] = "0/FF"
    cache.set(replica._user_key(user.pk), "0/1A", 60)
    assert replica.last_write(request) == "0/FF"
    cache.set(replica._user_key(user.pk), "1/0", 60)
    assert replica.last_write(request) == "1/0"
    cache.delete(replica._user_key(user.pk))
