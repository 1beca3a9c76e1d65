"""Rule-based bots: small classes with one batched ``act(observations, action_masks)``.

``base.Bot`` holds what they share; ``agents.registry`` names every bot and version.
"""

from __future__ import annotations

from agents.bots.base import Bot
from agents.bots.expert import ExpertBot, ExpertParams
from agents.bots.patient import PatientBot, PatientParams
from agents.bots.simple import SimpleBot
from agents.bots.simple_v1 import SimpleBotV1
from agents.bots.tempo import TempoBot, TempoParams

__all__ = [
    "Bot",
    "ExpertBot",
    "ExpertParams",
    "PatientBot",
    "PatientParams",
    "SimpleBot",
    "SimpleBotV1",
    "TempoBot",
    "TempoParams",
]
