"""Errors a user can act on. The CLI prints their message on one line; no traceback."""


class RagError(Exception):
    """Base class: the message says what went wrong and what to do."""


class ConfigError(RagError):
    """A setting is missing or invalid."""


class CorpusError(RagError):
    """A corpus file cannot be read; the message names the file and line."""


class IndexMissingError(RagError):
    """There is no index yet, or it was built with another embedder."""


class StoreUnavailableError(RagError):
    """The vector store (for example a Chroma server) cannot be reached."""


class LLMError(RagError):
    """The language-model endpoint failed after retries."""


class QuestionError(RagError):
    """The question cannot be answered as given (empty, too long...)."""


class StreamInterrupted(LLMError):
    """The endpoint broke off after sending part of the answer; the partial text must not be shown as complete."""

    partial_text: str = ""


class StorageError(RagError):
    """The data directory cannot be written or read as it should: read-only, full, or a damaged file."""


class WriterBusyError(RagError):
    """Another `rag index` holds the index's writer lock (or the Chroma collection's writer lease)."""


def storage_error(exc: OSError, what: str = "") -> StorageError:
    """An OSError from writing or reading the data directory, as one line that says what to do."""
    import errno

    where = f" {exc.filename}" if exc.filename else (f" {what}" if what else "")
    reason = exc.strerror or type(exc).__name__
    verb = "use"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        verb, hint = "write", "the disk is full: free some space and run it again (the last completed index is kept)"
    elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        verb, hint = "write", "use a writable data directory (--home, RAG_HOME) or fix its permissions"
    else:
        hint = "check the data directory (--home, RAG_HOME)"
    return StorageError(f"cannot {verb}{where} ({reason}); {hint}")
