"""The verify stage: is each sentence supported by the papers it cites? Between retrieve and answer; `rag check`
and the answer step both call it (rag.verify.checker.SupportChecker is the one entry point)."""
