"""The search's research code: beliefs no shipped searcher uses (a learned hand model, inference from the opponent's last discard)."""
