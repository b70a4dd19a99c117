"""Codebooks brought in from elsewhere, by admins: a JSON or REFI-QDA (.qdc) file starts a new codebook that
new studies can use. A study's own codebook pages are the codebook app's."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from concord.http import HtmxHttpRequest
from concord.uploads import upload_on_disk

from .services import CodebookError, import_codebook


@login_required
@require_http_methods(["GET", "POST"])
def import_file(request: HtmxHttpRequest):
    """Admins bring in a codebook made elsewhere (JSON or REFI-QDA .qdc); it starts a new codebook."""
    if not request.user.is_staff:
        raise PermissionDenied
    error = ""
    if request.method == "POST":
        upload = request.FILES.get("file")
        if upload is None or not upload.name.lower().endswith((".json", ".qdc")):
            error = "Choose a .json or .qdc file."
        else:
            with upload_on_disk(upload) as path:
                try:
                    codebook = import_codebook(path)
                except CodebookError as exc:
                    error = str(exc).replace(f"{path.parent}/", "")
                else:
                    messages.success(request, f"Imported {codebook} with {codebook.categories.count()} categories; "
                                              "new studies can use it.")
                    return redirect("taxonomy:import")
    return render(request, "taxonomy/import.html", {"error": error}, status=400 if error else 200)
