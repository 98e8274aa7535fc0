"""The OpenAI-compatible endpoint adapter: the only package that imports `openai`."""
