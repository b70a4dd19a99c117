"""An import-linter contract kept by name, over every app: a module of an interface kind (views, API views,
URLs, the admin, commands, template tags) is imported only by interfaces. Which modules it covers is found, not
listed, so a new module or a new app is covered the day it is written."""
from __future__ import annotations

from grimp import ImportGraph
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck


class InterfacesContract(Contract):
    """Options: `interfaces`, the kinds (the module's name inside its app, e.g. `views`) that are interfaces."""

    type_name = "interfaces"
    interfaces = fields.ListField(subfield=fields.StringField())

    def _kind(self, module: str) -> str | None:
        parts = module.split(".")
        return parts[1] if len(parts) > 1 else None

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        interfaces = set(self.interfaces)
        apps = set(self.session_options["root_packages"])
        breaches = []
        for module in sorted(graph.modules):
            if module.split(".")[0] not in apps or self._kind(module) in interfaces:
                continue
            for imported in sorted(graph.find_modules_directly_imported_by(module)):
                if imported.split(".")[0] in apps and self._kind(imported) in interfaces:
                    details = graph.get_import_details(importer=module, imported=imported)
                    lines = ", ".join(f"l.{d['line_number']}" for d in details) or "?"
                    breaches.append(f"{module} -> {imported} ({lines})")
        return ContractCheck(kept=not breaches, warnings=[], metadata={"breaches": breaches})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for breach in check.metadata["breaches"]:
            output.print_error(f"-   {breach}", bold=False)
        output.new_line()
        output.print_error(f"Only these kinds of module may import one of them: {', '.join(self.interfaces)}.",
                           bold=False)
