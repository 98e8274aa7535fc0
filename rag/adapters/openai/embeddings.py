"""rag.ports.Embedder over an OpenAI-compatible /embeddings endpoint."""

from __future__ import annotations

from collections.abc import Sequence

from rag.adapters.openai.client import Endpoint, endpoint_from_settings
from rag.adapters.openai.responses import embedding_vectors
from rag.settings import EndpointSettings

# Output sizes of OpenAI's embedding models, so `dim` is known without a call.
_KNOWN_EMBEDDING_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible /embeddings endpoint. The caller batches; `embed_batch` sends one
    request (with the same retry policy as chat)."""

    def __init__(self, endpoint: Endpoint, model: str) -> None:
        self._endpoint = endpoint
        self.model = model
        self.name = f"openai:{model}"
        self._dim: int | None = _KNOWN_EMBEDDING_DIMS.get(model)
        self._dim_seen = False  # True once a response told us the size

    @classmethod
    def from_settings(
        cls,
        settings: EndpointSettings,
        model: str,
        *,
        attempts: int | None = None,
        max_wait_s: float | None = None,
        wait_multiplier: float = 0.5,
    ) -> OpenAIEmbedder:
        endpoint = endpoint_from_settings(
            settings, attempts=attempts, max_wait_s=max_wait_s, wait_multiplier=wait_multiplier
        )
        return cls(endpoint, model)

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, base_url={self._endpoint.url!r})"

    @property
    def dim(self) -> int:
        """Vector size: known for OpenAI's models, else learned from the first call (probing once if needed)."""
        if self._dim is None:
            self.embed_batch(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        # OpenAI rejects empty strings; a single space embeds as "nothing" just as well
        inputs = [t if t.strip() else " " for t in texts]

        def fetch() -> list[list[float]]:
            response = self._endpoint.client.embeddings.create(model=self.model, input=inputs, encoding_format="float")
            return embedding_vectors(response, len(inputs))

        vectors = self._endpoint.call(fetch, "embeddings")
        dim = len(vectors[0])
        if self._dim_seen and dim != self._dim:
            raise self._endpoint.malformed(f"embeddings changed size from {self._dim} to {dim} dimensions")
        self._dim, self._dim_seen = dim, True
        return vectors
