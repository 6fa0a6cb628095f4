"""The repository stands on its own: no file reaches outside it, cited docs exist, data ships.

A user's clone has nothing beside it. CI does have a folder beside the clone, so these tests make
sure nothing in the project depends on it: no tracked file names it, every ``docs/… §N`` citation
resolves to a heading of the project's own docs, and the package data is inside the wheel.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Built from pieces so that this file does not match itself.
_SIBLING = "../" + "shared"
_SPEC_NAMES = ["RULES", "PAPERS", "ANCHORS", "STYLE"]
FORBIDDEN = [
    re.compile(re.escape(_SIBLING)),
    re.compile(r"\bshared/(fixtures|spec|reference-java)\b"),
    *(re.compile(rf"\b{n}\.md\b") for n in _SPEC_NAMES),  # the private spec files' names
]
TEXT_SUFFIXES = {".py", ".md", ".toml", ".cff", ".txt", ".json", ".cfg", ".yml", ".yaml", ""}


def tracked_files() -> list[Path]:
    git = shutil.which("git")
    if git and (ROOT / ".git").exists():
        out = subprocess.run(
            [git, "ls-files", "-co", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return [ROOT / p for p in out.splitlines() if (ROOT / p).is_file()]
    skip = {".git", "build", "dist", "runs", "__pycache__", ".pytest_cache", ".ruff_cache"}
    return [p for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.parts)]


def text_files() -> list[Path]:
    return [p for p in tracked_files() if p.suffix in TEXT_SUFFIXES or p.parent.name == ".ci"]


def test_no_file_refers_outside_the_repository():
    offenders = []
    for path in text_files():
        text = path.read_text(errors="replace")
        for lineno, line in enumerate(text.splitlines(), 1):
            if any(rx.search(line) for rx in FORBIDDEN):
                offenders.append(f"{path.relative_to(ROOT)}:{lineno}: {line.strip()[:100]}")
    assert not offenders, "files refer to the private folder beside the clone:\n" + "\n".join(
        offenders
    )


def _headings(doc: Path) -> set[str]:
    """Section numbers of a Markdown file: '## 2.4 Title' -> '2.4'; numbered list items of a
    section count as sub-sections ('1.' under '### 0.3' -> '0.3.1')."""
    numbers: set[str] = set()
    current = None
    for line in doc.read_text().splitlines():
        m = re.match(r"#+\s+(\d+(?:\.\d+)*)\.?\s", line)
        if m:
            current = m.group(1)
            numbers.add(current)
            continue
        item = re.match(r"(\d+)\.\s", line)
        if item and current:
            numbers.add(f"{current}.{item.group(1)}")
    return numbers


CITATION = re.compile(r"docs/([a-z_]+\.md)(?:\s*§\s*(\d+(?:\.\d+)*))?")


def test_every_docs_citation_resolves():
    docs = ROOT / "docs"
    cache: dict[str, set[str]] = {}
    missing = []
    for path in text_files():
        for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for name, section in CITATION.findall(line):
                doc = docs / name
                where = f"{path.relative_to(ROOT)}:{lineno}"
                if not doc.is_file():
                    missing.append(f"{where}: no docs/{name}")
                    continue
                if section:
                    heads = cache.setdefault(name, _headings(doc))
                    if section.rstrip(".") not in heads:
                        missing.append(f"{where}: docs/{name} has no §{section}")
    assert not missing, "\n".join(missing)


def test_docs_cover_what_the_issue_asks():
    docs = ROOT / "docs"
    for name in ("rules.md", "papers.md", "anchors.md", "bibliography.md", "README.md"):
        assert (docs / name).is_file(), name
    rules = _headings(docs / "rules.md")
    # the rule alphabet, its semantics, metrics, protocols, MAP-Elites, GA, meta-agents
    for sec in ("1", "2.9", "3.1", "3.2", "3.3", "4", "5", "6", "7.1", "8", "9.1", "10", "12"):
        assert sec in rules, sec
    bib = (docs / "bibliography.md").read_text()
    for key in ("[CIG18]", "[CoG19]", "[ToG20]", "[Bayes21]", "[BAD19]"):
        assert key in bib, key


def test_licence_and_citation_files():
    assert "MIT" in (ROOT / "LICENSE").read_text()
    cff = (ROOT / "CITATION.cff").read_text()
    assert cff.startswith("cff-version: 1.2.0")
    yaml = pytest.importorskip("yaml", reason="PyYAML not installed: CFF syntax not parsed")
    doc = yaml.safe_load(cff)
    assert doc["title"] == "hanabi-adhoc"
    assert doc["license"] == "MIT"
    assert len(doc["references"]) >= 5
    assert "How to cite" in (ROOT / "README.md").read_text()


def _setuptools_major() -> int:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return int(version("setuptools").split(".")[0])
    except (PackageNotFoundError, ValueError):
        return 0


def copy_source_tree(src: Path) -> Path:
    """The repository's files that a build reads (no tests, benchmarks or examples) at ``src``."""
    for path in tracked_files():
        rel = path.relative_to(ROOT)
        if rel.parts[0] in {"tests", "benchmarks", "examples", ".git"}:
            continue
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, src / rel)
    return src


def test_package_data_is_in_the_wheel(tmp_path):
    """The published data ships inside the built wheel (not only in the source tree)."""
    src = copy_source_tree(tmp_path / "src")
    # the installed setuptools builds offline if it is new enough for pyproject.toml; otherwise
    # pip fetches the build requirements into an isolated environment
    isolation = [] if _setuptools_major() >= 77 else ["--use-pep517"]
    offline = ["--no-build-isolation"] if not isolation else []
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", *offline, *isolation, "-q",
         "-w", str(tmp_path / "wheel"), str(src)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if proc.returncode != 0 and re.search(
        r"No module named|Could not find a version|connection|Network is unreachable",
        proc.stderr,
        flags=re.I,
    ):
        pytest.skip(f"cannot build a wheel here: {proc.stderr.strip()[-200:]}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for data in (
        "agents/data/rulebase.json",
        "agents/data/published_chromosomes.json",
        "agents/data/README.md",
        "agents/data/bad/small.json",
        "agents/data/bad/small.npz",
        "agents/data/rl_partners/ppo-sp1.json",
        "agents/data/rl_partners/ppo-sp1.npz",
        "qd/data/population_5x5_run1.json",
        "qd/data/population_20x20_run1.json",
        "qd/data/README.md",
        "hanabi_adhoc/benchmark/data/pool.v1.json",
        "hanabi_adhoc/benchmark/data/published.v1.json",
        "hanabi_adhoc/benchmark/data/README.md",
    ):
        assert data in names, data


def test_shipped_data_loads():
    from agents.published import data_path, published_chromosomes
    from qd.io import load_population

    assert len(published_chromosomes()) == 5
    assert data_path("rulebase.json").is_file()
    assert len(load_population("5x5")) == 22
    assert len(load_population("20x20")) == 311
    with pytest.raises(FileNotFoundError, match="available"):
        data_path("nope.json")
