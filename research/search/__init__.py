"""The search's research code: beliefs no shipped searcher uses.

A learned hand model, inference from the opponent's last discard, and an evidence belief.
"""
