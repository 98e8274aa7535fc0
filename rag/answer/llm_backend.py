"""The LLM backend: the numbered sources and the question go into the prompts under prompts/, the model's
answer streams back. Any rag.ports.ChatModel serves: an OpenAI-compatible endpoint, the local llama.cpp model,
a scripted fake."""

from __future__ import annotations

from collections.abc import Generator, Sequence

from rag.answer.backends import Draft, DraftStream
from rag.answer.citations import REFUSAL
from rag.answer.question import Question
from rag.errors import StreamInterrupted
from rag.ports import ChatModel, Message
from rag.prompts import format_sources, load_prompt, prompt_id
from rag.settings import AnswerSettings
from rag.types import Hit


class LLMBackend:
    """rag.answer.backends.AnswerBackend over a chat model."""

    def __init__(self, chat: ChatModel, settings: AnswerSettings) -> None:
        self.chat: ChatModel | None = chat
        self._chat = chat
        self.settings = settings
        self.name = chat.backend
        self.model = chat.model

    def messages(self, question: Question, hits: Sequence[Hit]) -> tuple[list[Message], str]:
        """The chat messages for this question and the prompt id they were rendered from."""
        system = load_prompt(self.settings.prompts_dir, f"{question.mode}_system")
        user = load_prompt(self.settings.prompts_dir, f"{question.mode}_user")
        messages: list[Message] = [
            {"role": "system", "content": system.render(refusal=REFUSAL)},
            {"role": "user", "content": user.render(sources=format_sources(hits), question=question.text)},
        ]
        return messages, prompt_id(system, user)

    def draft(self, question: Question, hits: Sequence[Hit]) -> DraftStream:
        return DraftStream(self._steps(question, hits))

    def _steps(self, question: Question, hits: Sequence[Hit]) -> Generator[str, None, Draft]:
        messages, prompt = self.messages(question, hits)
        stream = self._chat.stream(messages, max_tokens=self.settings.max_tokens, temperature=self.settings.temperature)
        parts: list[str] = []
        try:
            for delta in stream:
                parts.append(delta)
                yield delta
        except StreamInterrupted as exc:
            text = "".join(parts).strip()
            return Draft(text, self.name, self._chat.model, prompt, complete=False, notes=(f"incomplete: {exc}",))
        # the model name may be resolved at the first request (an endpoint's default model)
        return Draft("".join(parts).strip(), self.name, self._chat.model, prompt, usage=stream.usage)
