"""The second complexity gate: no function of the product over LIMIT paths by radon's cyclomatic complexity.

ruff's C901 (mccabe) counts branches and loops but not `and`, `or` or the conditions inside comprehensions, so a
function can pass it while a reader holds twice as many paths; radon counts those too. Run as
`python -m lint.complexity` (CI, `make lint`); with file or folder names, it looks at those only."""
from __future__ import annotations

import sys
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class

LIMIT = 15
ROOT = Path(__file__).resolve().parent.parent
# The product: every package the wheel holds. Tests and benchmarks are held to ruff's C901 only: a test's asserts
# are its paths by radon's count, and a test split to please it reads worse.
PACKAGES = ("config", "concord", "accounts", "ingest", "taxonomy", "annotation", "agreement", "machines",
            "interviews", "codebook", "findings", "corpus", "demo", "stats", "integrations", "webhooks", "reminders",
            "lint")


def _files(paths: list[Path]):
    for path in paths:
        if path.is_file():
            yield path
            continue
        for file in sorted(path.rglob("*.py")):
            if "migrations" not in file.relative_to(path).parts:
                yield file


def _functions(blocks):
    # radon lists a class's methods beside its functions as well as inside the class.
    return [block for block in blocks if not isinstance(block, Class)]


def over(paths: list[Path]) -> list[str]:
    """Each function over LIMIT, as `file:line name (complexity)`."""
    found = []
    for file in _files(paths):
        for function in _functions(cc_visit(file.read_text(encoding="utf-8"))):
            if function.complexity > LIMIT:
                name = f"{function.classname}.{function.name}" if function.classname else function.name
                found.append(f"{file.relative_to(ROOT) if file.is_relative_to(ROOT) else file}:{function.lineno} "
                             f"{name} ({function.complexity})")
    return found


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or [ROOT / p for p in PACKAGES]
    found = over(paths)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} functions have more than {LIMIT} paths (radon's cyclomatic complexity): split them.",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
