"""Reading OpenAI-shaped responses (model lists, embeddings, error bodies) by their attributes, without the SDK.

Anything that is not shaped like an OpenAI response raises Malformed, which is never retried.
"""

from __future__ import annotations

from typing import Any


class Malformed(Exception):
    """The endpoint answered with something that is not an OpenAI-shaped response. Never retried."""


def model_ids(page: Any) -> list[str]:
    """The ids in a GET /models page."""
    data = getattr(page, "data", None)
    if not isinstance(data, list):
        raise Malformed("the model list has no 'data' array")
    ids = [getattr(m, "id", None) for m in data]
    if not all(isinstance(i, str) for i in ids):
        raise Malformed("a model in the list has no id")
    return [str(i) for i in ids]


def embedding_vectors(response: Any, expected: int) -> list[list[float]]:
    """The vectors of an /embeddings response, in input order; all of one length."""
    data = getattr(response, "data", None)
    if not isinstance(data, list) or len(data) != expected:
        got = len(data) if isinstance(data, list) else "no"
        raise Malformed(f"asked for {expected} embeddings, got {got}")
    ordered = sorted(data, key=lambda d: getattr(d, "index", 0))
    vectors: list[list[float]] = []
    for item in ordered:
        vector = getattr(item, "embedding", None)
        if not isinstance(vector, list) or not vector:
            raise Malformed("an embedding is not a list of numbers")
        vectors.append([float(x) for x in vector])
    if len({len(v) for v in vectors}) != 1:
        raise Malformed("embeddings in one response differ in length")
    return vectors


def server_message(exc: Any) -> str:
    """The server's own words in an error response (an SDK status error): its JSON message, else the body's start."""
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(body.get("detail"), str):
            return str(body["detail"])
    try:
        return exc.response.text[:300]
    except Exception:  # the body may be unread or undecodable: the status alone will do
        return ""
