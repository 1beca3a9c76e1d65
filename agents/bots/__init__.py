"""Rule-based bots: small classes with one batched ``act(observations, action_masks)``."""

from __future__ import annotations

from agents.bots.expert import ExpertBot
from agents.bots.simple import SimpleBot

__all__ = ["ExpertBot", "SimpleBot"]
