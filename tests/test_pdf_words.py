"""Issue 35: words a PDF ran together ("westorethreereplicas") are split again with the document's own vocabulary,
only in a document that shows that defect, and never where a real word merely contains others."""

from __future__ import annotations

from rag.corpus.pdf_words import mend_run_together

PROSE = [
    "We store three replicas of each chunk on different machines and the master keeps the data for clients.",
    "The data is written by clients that can append records; we store chunks on disks of commodity hardware",
    "running in the cluster.",
    "Replicas of the chunk are placed on machines in the cluster and the master tracks where the chunk is.",
    "An operator reads the information to understand the cluster; the operator and the master keep a log.",
]
GLUED = [
    "westorethreereplicas of each chunk", "clientscanappendrecords to the chunk", "themasterkeepsthedata",
    "runningoncommodityhardware", "replicasofthechunk are placed", "chunksonthemachines", "themastertrackswhere",
    "dataiswrittenbyclients", "clientsthatcanappend", "disksofcommodityhardware", "themachinesinthecluster",
    "thedataforclients", "recordsonthedisks",
]  # fmt: skip


def test_a_document_with_run_together_words_gets_them_split() -> None:
    (out,) = mend_run_together([PROSE + PROSE + GLUED])
    mended = out[len(PROSE) * 2 :]
    assert mended[0] == "we store three replicas of each chunk"
    assert mended[1] == "clients can append records to the chunk"  # not "client scan append"
    assert mended[3] == "running on commodity hardware"
    assert out[: len(PROSE) * 2] == PROSE + PROSE  # the rest untouched


def test_a_normal_document_is_left_alone() -> None:
    pages = [PROSE + PROSE + ["The operator understands the information in the cluster.", "a bytes terabytes"]]
    assert mend_run_together(pages) == pages  # "oper|at|or", "in|formation", "ter|a|bytes" are never split
    (out,) = mend_run_together([PROSE + PROSE + GLUED[:3]])
    assert out[-3:] == GLUED[:3]  # a few run-together words are no sign of the defect: nothing is risked
