"""answer: hits -> a cited answer, checked sentence by sentence (route -> retrieve -> abstain -> draft -> verify)."""
