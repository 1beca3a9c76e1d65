"""Single-hand evaluation: the hands of the hand-mode env, each the same alone or in a batch."""

from __future__ import annotations

import numpy as np
import pytest

from agents.evaluation.hand_eval import HandEvalResult, evaluate_hands
from agents.policies.model import load_policy
from hgin_env.envs.sb3_vec_env import HollywoodGinVecEnv

SEED = 5


class LastLegal:
    """A policy without keys or randomness: the legal action with the highest id."""

    needs_observations = False

    def act(self, observations: np.ndarray | None, action_masks: np.ndarray) -> np.ndarray:
        """Row i's highest legal action id."""
        masks = np.asarray(action_masks, bool)
        return masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1)


def counts(result: HandEvalResult) -> tuple[int, ...]:
    """The whole-number totals behind a result: wins, losses, draws, points, decisions."""
    n = result.hands
    totals = (result.hand_win_rate, result.hand_loss_rate, result.draw_rate,
              result.points_per_hand, result.decisions_per_hand)  # fmt: skip
    return (n, *(round(x * n) for x in totals))


def test_each_hand_scores_the_same_alone_or_in_a_batch():
    """Bots that take keys: k single-hand evaluations add up to one batch of k hands."""
    k = 12
    batch = evaluate_hands(load_policy("simple", SEED), "random", k, SEED)
    alone = [evaluate_hands(load_policy("simple", 0), "random", 1, SEED + i) for i in range(k)]
    assert counts(batch) == tuple(np.sum([counts(r) for r in alone], axis=0))


def test_a_policy_without_keys_plays_the_hands_of_the_hand_mode_env():
    """The first hand of each game of a hand-mode VecEnv (seat alternating) gives the result."""
    n = 64
    env = HollywoodGinVecEnv(n, opponent="random", mode="hand", agent_seat="alternate", seed=SEED)
    policy, obs = LastLegal(), env.reset()
    assert env.core is not None and not env.core.redeals.any()  # no hand dealt twice
    live = np.ones(n, bool)
    decisions = np.zeros(n, np.int64)
    facts = {key: np.zeros(n, np.int64) for key in ("hand_result", "hand_score", "agent_knocked")}
    while live.any():
        decisions += live
        obs, _, done, infos = env.step(policy.act(obs, env.action_masks()))
        for i in np.flatnonzero(done & live):
            for key, values in facts.items():
                values[i] = infos[i][key]
        live &= ~done
    result = evaluate_hands(policy, "random", n, SEED)
    won, score = facts["hand_result"], facts["hand_score"]
    assert result.hand_win_rate == pytest.approx(np.mean(won > 0))
    assert result.hand_loss_rate == pytest.approx(np.mean(won < 0))
    assert result.draw_rate == pytest.approx(np.mean(won == 0))
    assert result.points_per_hand == pytest.approx(score.mean())
    assert result.knock_rate == pytest.approx(facts["agent_knocked"].mean())
    assert result.decisions_per_hand == pytest.approx(decisions.mean())
