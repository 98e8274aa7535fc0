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
