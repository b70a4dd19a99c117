"""The `in` lookup for lists of any length.

A filter such as `number__in=<70,000 values>` compiles by default to one placeholder per value, and PostgreSQL's
protocol refuses a query with more than 65,535 parameters (SQLite stops at 32,766). Django's own queries do it
too: m2m `add`, deletion cascades and `prefetch_related` filter by every id at hand. Past `LONG` values the list
travels as one parameter instead: an array on PostgreSQL (`= ANY(%s)`, which PostgreSQL plans like `IN`), a JSON
array on SQLite (`IN (SELECT value FROM json_each(%s))`). Shorter lists keep Django's SQL unchanged.
"""
from __future__ import annotations

import json

from django.core.exceptions import EmptyResultSet
from django.db.models import Field, ForeignObject
from django.db.models.expressions import ColPairs
from django.db.models.fields.related_lookups import RelatedIn
from django.db.models.lookups import In
from django.db.models.sql.query import Query

LONG = 1000


class OneParameterIn:
    """Mixed into Django's `In` lookups: a long list of plain values becomes a single parameter."""

    def _values(self, compiler, connection) -> list | None:
        if isinstance(self.rhs, Query) or not self.rhs_is_direct_value() or len(self.rhs) <= LONG:
            return None
        if isinstance(self.lhs, (ColPairs, tuple)):  # several columns compile to a tuple comparison
            return None
        try:
            values = list(dict.fromkeys(v for v in self.rhs if v is not None))
        except TypeError:  # unhashable values (a JSON field's): Django's own SQL handles them
            return None
        if not values:
            raise EmptyResultSet
        sqls, params = self.batch_process_rhs(compiler, connection, values)
        # A placeholder other than the bare one (a cast, a function) belongs to each value: keep Django's SQL.
        return list(params) if all(s == "%s" for s in sqls) else None

    def as_postgresql(self, compiler, connection):
        values = self._values(compiler, connection)
        if values is None:
            return self.as_sql(compiler, connection)
        lhs, lhs_params = self.process_lhs(compiler, connection)
        return f"{lhs} = ANY(%s)", (*lhs_params, values)

    def as_sqlite(self, compiler, connection):
        values = self._values(compiler, connection)
        if values is None or not all(isinstance(v, (int, str)) and not isinstance(v, bool) for v in values):
            return self.as_sql(compiler, connection)
        lhs, lhs_params = self.process_lhs(compiler, connection)
        return f"{lhs} IN (SELECT value FROM json_each(%s))", (*lhs_params, json.dumps(values))


class LongIn(OneParameterIn, In):
    pass


class LongRelatedIn(OneParameterIn, RelatedIn):
    pass


def register() -> None:
    Field.register_lookup(LongIn)
    ForeignObject.register_lookup(LongRelatedIn)
