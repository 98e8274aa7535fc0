"""`rag check`: a researcher's own draft checked against the library, sentence by sentence.

draft (Markdown / LaTeX) -> sentences with citation keys (draft, citations, latex, markdown) -> keys resolved to
library papers (resolve) -> each sentence checked by the answer path's SupportChecker (run) -> CheckReport (report)
-> text / Markdown (render) or JSON (report.to_record, docs/check-json.md).
"""
