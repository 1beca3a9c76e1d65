"""The shared env core: options, opponents, seats, rewards, masks, and the no-leak guarantee."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from hgin_env.engine.actions import KNOCK, N_ACTIONS, TAKE
from hgin_env.engine.config import RulesConfig
from hgin_env.engine.game import GinEngine, Outcome, Phase
from hgin_env.engine.hollywood import ScoreSheets
from hgin_env.envs.config import EnvConfig, make_env_config
from hgin_env.envs.core import GinCore
from hgin_env.envs.observation import OBS_DIM, OBS_LAYOUT, encode_observations
from hgin_env.envs.policy import (
    RandomPolicy,
    accepts_keys,
    keyed_random_legal_actions,
    random_legal_actions,
)


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row (rows without one get 0)."""
    return np.maximum(random_legal_actions(masks, rng), 0)


class KnockFirst:
    """A deterministic opponent that knocks when it can, else takes, else plays the lowest id.

    It ends hands early, also before the agent's first move.
    """

    needs_observations = False

    def __init__(self) -> None:
        self.calls: list[int] = []

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Pick per row: a knock, else take, else the lowest legal id."""
        self.calls.append(len(action_masks))
        knocks = action_masks[:, KNOCK : KNOCK + 52]
        return np.select(
            [knocks.any(axis=1), action_masks[:, TAKE]],
            [KNOCK + knocks.argmax(axis=1), TAKE],
            action_masks.argmax(axis=1),
        )


# ---------------------------------------------------------------------- EnvConfig
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("mode", "tournament"),
        ("reward_scale", 0),
        ("reward_scale", "100"),
        ("series_win_reward", -1.0),
        ("illegal_action", "ignore"),
        ("illegal_penalty", float("nan")),
        ("agent_seat", 2),
        ("agent_seat", True),
    ],
)
def test_env_config_rejects_invalid_values_naming_the_field(field, value):
    """An invalid option raises ValueError that names the EnvConfig field."""
    with pytest.raises(ValueError, match=f"EnvConfig.{field}"):
        EnvConfig(**{field: value})


def test_env_config_round_trips_and_rejects_unknown_keys():
    """from_dict(to_dict()) is the identity; an unknown key is named in the error."""
    cfg = EnvConfig(mode="series", reward_scale=50.0, agent_seat=1)
    assert EnvConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match="reward_scal"):
        EnvConfig.from_dict({"reward_scal": 3})
    with pytest.raises(ValueError, match="unknown env option"):
        make_env_config(None, rules_typo=1)
    assert make_env_config({"mode": "series"}, reward_scale=10).reward_scale == 10
    assert make_env_config({"mode": "series"}, None).mode == "series"
    assert make_env_config({"mode": "series"}, "hand").mode == "hand"


@pytest.mark.parametrize("env_class", ["HollywoodGinVecEnv", "HollywoodGinVectorEnv", "raw_env"])
def test_batched_envs_refuse_an_unknown_render_mode(env_class: str) -> None:
    """The batched and PettingZoo envs raise, naming the modes they support."""
    import hgin_env.envs as envs
    from hgin_env.envs import pettingzoo_env

    cls = getattr(pettingzoo_env if env_class == "raw_env" else envs, env_class)
    modes = (
        r"\['ansi', 'human', 'rgb_array'\]" if env_class == "raw_env" else r"\['ansi', 'human'\]"
    )
    with pytest.raises(ValueError, match=f"render_mode must be one of {modes}"):
        cls(render_mode="depth_array")


def test_constructor_keywords_map_onto_the_configs():
    """Env keyword arguments become EnvConfig fields and a rules dict becomes a RulesConfig."""
    core = GinCore(2, config={"reward_scale": 7}, rules={"knock_limit": 5}, seed=0)
    assert core.config.reward_scale == 7 and core.rules == RulesConfig(knock_limit=5)
    with pytest.raises(ValueError, match="RulesConfig.knock_limit"):
        GinCore(1, rules={"knock_limit": -1})
    with pytest.raises(ValueError, match="number of games"):
        GinCore(0)


# ---------------------------------------------------------------------- opponents
def test_opponent_accepts_a_name_or_an_object_and_rejects_others():
    """'random' resolves to the keyed RandomPolicy; an object with act is used as is."""
    assert isinstance(GinCore(1, opponent="random").opponent, RandomPolicy)
    bot = KnockFirst()
    assert GinCore(1, opponent=bot).opponent is bot
    with pytest.raises(ValueError, match="unknown policy"):
        GinCore(1, opponent="no-such-bot")
    with pytest.raises(ValueError, match="act"):
        GinCore(1, opponent=object())
    assert accepts_keys(RandomPolicy()) and not accepts_keys(bot)


def test_opponent_acts_once_per_move_for_the_whole_batch():
    """The opponent's moves are batched: a few act calls per step, never one per game."""
    bot = KnockFirst()
    core = GinCore(64, opponent=bot, seed=3)
    core.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        before = len(bot.calls)
        core.step(random_actions(core.action_masks(), rng))
        assert len(bot.calls) - before <= 4
        core.reset(~core.awaiting)
    assert max(bot.calls) > 1


def test_opponent_gets_its_own_seat_observations():
    """The opponent's observations are encoded from its own seat, not the agent's."""
    seen = {}

    class Spy:
        def act(self, observations, action_masks):
            seen["obs"] = observations
            return KnockFirst().act(observations, action_masks)

    core = GinCore(8, opponent=Spy(), seed=1)
    core.reset()
    core.step(random_actions(core.action_masks(), np.random.default_rng(0)))
    assert seen["obs"].shape[1] == OBS_DIM and seen["obs"].dtype == np.float32
    assert (seen["obs"][:, OBS_LAYOUT["to_act"].start] == 1).all()  # the opponent's own view


def test_illegal_opponent_action_is_reported():
    """An opponent returning an illegal action raises ValueError naming the policy."""

    class Bad:
        def act(self, observations, action_masks):
            return np.full(len(action_masks), 3)

    core = GinCore(4, opponent=Bad(), seed=0, agent_seat=0)
    with pytest.raises(ValueError, match="opponent policy Bad chose illegal action"):
        core.reset()
        for _ in range(5):
            core.step(random_actions(core.action_masks(), np.random.default_rng(0)))


def test_keyed_random_choice_is_uniform_over_legal_actions():
    """Keyed random actions are legal and spread evenly over the legal ids."""
    masks = np.zeros((30000, N_ACTIONS), bool)
    masks[:, [3, 50, 104]] = True
    keys = np.arange(30000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    counts = np.bincount(keyed_random_legal_actions(masks, keys), minlength=N_ACTIONS)
    assert counts[[3, 50, 104]].sum() == 30000
    assert np.all(np.abs(counts[[3, 50, 104]] / 30000 - 1 / 3) < 0.02)


# ---------------------------------------------------------------------- seats, reset
@pytest.mark.parametrize("mode", ["hand", "series"])
def test_agent_is_to_act_in_every_live_game(mode):
    """After reset and every step, each live game waits for the agent, with a legal move."""
    core = GinCore(128, opponent=KnockFirst(), mode=mode, seed=5)
    core.reset()
    rng = np.random.default_rng(1)
    for _ in range(40):
        s = core.engine.state
        live = core.awaiting
        assert (s.current[live] == core.agent_seat[live]).all()
        assert (s.phase[live] != Phase.OVER).all()
        assert core.action_masks()[live].any(axis=1).all()
        assert not core.action_masks()[~live].any()
        core.step(random_actions(core.action_masks(), rng))
        core.reset(~core.awaiting)


def test_observations_stay_inside_the_observation_space():
    """Every observation entry lies in [0, 2], the bounds of the envs' Box space."""
    core = GinCore(64, mode="series", seed=8, rules=RulesConfig(knock_limit=30, game_target=40))
    core.reset()
    rng = np.random.default_rng(0)
    for _ in range(150):
        obs = core.observe()
        assert obs.dtype == np.float32 and obs.min() >= 0.0 and obs.max() <= 2.0
        result = core.step(random_actions(core.action_masks(), rng))
        final = core.final_observations(result.terminated)
        assert ((final >= 0.0) & (final <= 2.0)).all()
        core.reset(~core.awaiting)


def test_hand_ended_by_the_opponent_before_the_agent_moves_is_dealt_again():
    """Hand mode: a hand the opponent ends at once is redealt, so reset always awaits the agent."""
    core = GinCore(4096, opponent=KnockFirst(), seed=11)
    core.reset()
    assert core.awaiting.all()
    assert core.redeals.sum() > 0
    assert (core.engine.hand_counter[core.redeals > 0] > 1).all()


def test_series_pays_hands_settled_at_reset_with_the_first_step():
    """Series mode: a hand the opponent wins before the agent's first move is paid next step."""
    core = GinCore(4096, opponent=KnockFirst(), mode="series", seed=11)
    core.reset()
    pending_hands = core._pending.hands_ended.copy()
    pending_score = core._pending.hand_score.copy()
    early = pending_hands > 0
    assert early.any() and (pending_score[early] < 0).all()  # the opponent won them
    assert (core.sheets.scores.sum(axis=(1, 2))[early] > 0).all()
    result = core.step(random_actions(core.action_masks(), np.random.default_rng(0)))
    assert (result.hands_ended >= pending_hands).all()
    quiet = early & (result.hands_ended == pending_hands)  # no new hand ended in the step
    assert quiet.any()
    np.testing.assert_array_equal(result.hand_score[quiet], pending_score[quiet])
    np.testing.assert_allclose(result.reward[quiet], pending_score[quiet] / 100.0, rtol=1e-6)


@pytest.mark.parametrize(
    ("choice", "check"),
    [
        (0, lambda seats: (seats == 0).all()),
        (1, lambda seats: (seats == 1).all()),
        ("alternate", lambda seats: (seats[1:] != seats[:-1]).all()),
        ("random", lambda seats: 0.3 < seats.mean() < 0.7),
    ],
)
def test_agent_seat_option(choice, check):
    """agent_seat fixes the seat, alternates it per episode, or draws it from the seed."""
    core = GinCore(1, seed=2, agent_seat=choice)
    seats = []
    for _ in range(40):
        core.reset()
        seats.append(int(core.agent_seat[0]))
    assert check(np.array(seats))


# ---------------------------------------------------------------------- rewards and ends
def test_hand_rewards_are_points_won_minus_lost_over_the_scale():
    """Hand mode: reward = agent's signed points / reward_scale, 0 for a draw; episode ends."""
    core = GinCore(256, seed=7, config={"reward_scale": 50.0})
    core.reset()
    rng = np.random.default_rng(2)
    seen = set()
    for _ in range(200):
        seats = core.agent_seat.copy()
        result = core.step(random_actions(core.action_masks(), rng))
        ended = result.hands_ended > 0
        s = core.engine.state
        sign = np.where(s.winner == seats, 1, np.where(s.winner < 0, 0, -1))
        np.testing.assert_array_equal(result.hand_score[ended], (sign * s.points)[ended])
        np.testing.assert_allclose(result.reward, result.hand_score / 50.0, rtol=1e-6)
        np.testing.assert_array_equal(ended, result.terminated | result.truncated)
        assert (result.reward[s.outcome == Outcome.DRAW] == 0).all()
        seen.update(Outcome(int(o)).name for o in result.outcome[ended])
        core.reset(~core.awaiting)
    assert {"KNOCK", "DRAW"} <= seen


def test_max_turn_draw_truncates_in_hand_mode_only():
    """Hand mode truncates (not terminates) on the max-turn draw; series mode plays on."""
    rules = RulesConfig(max_turns_per_hand=4)
    core = GinCore(64, rules=rules, seed=1)
    core.reset()
    rng = np.random.default_rng(0)
    truncated = np.zeros(64, bool)
    for _ in range(12):
        result = core.step(random_actions(core.action_masks(), rng))
        trunc = result.truncated
        assert not (trunc & result.terminated).any()
        assert (core.engine.state.outcome[trunc] == Outcome.TRUNCATED).all()
        assert (result.reward[trunc] == 0).all()
        truncated |= trunc
        core.reset(~core.awaiting)
    assert truncated.any()
    series = GinCore(16, rules=rules, mode="series", seed=1)
    series.reset()
    for _ in range(30):
        result = series.step(random_actions(series.action_masks(), rng))
        assert not result.truncated.any()
        series.reset(~series.awaiting)


def test_series_end_adds_the_series_reward():
    """Series mode: the last step adds +/- series_win_reward for the series winner."""
    rules = RulesConfig(game_target=15)
    core = GinCore(
        64,
        opponent=KnockFirst(),
        mode="series",
        rules=rules,
        seed=4,
        config={"series_win_reward": 2.0},
    )
    core.reset()
    rng = np.random.default_rng(3)
    finished = 0
    for _ in range(600):
        seats = core.agent_seat.copy()
        result = core.step(random_actions(core.action_masks(), rng))
        done = result.terminated
        if done.any():
            winner = core.sheets.series_winner[done]
            expect = np.where(winner == seats[done], 1, -1)
            np.testing.assert_array_equal(result.series_result[done], expect)
            np.testing.assert_allclose(
                result.reward[done], result.hand_score[done] / 100.0 + 2.0 * expect, rtol=1e-6
            )
            finished += int(done.sum())
        assert not result.series_result[~done].any()
        core.reset(done)
    assert finished > 10


def test_illegal_action_raises_naming_action_and_legal_ones():
    """illegal_action='raise': ValueError names the action and lists the legal ones."""
    core = GinCore(1, seed=0)
    core.reset()
    legal = np.flatnonzero(core.action_masks()[0])
    bad = next(a for a in range(N_ACTIONS) if a not in legal)
    with pytest.raises(ValueError, match=rf"illegal action {bad} .*legal actions: {legal[0]} "):
        core.step(np.array([bad]))
    with pytest.raises(ValueError, match="illegal action 999"):
        core.step(np.array([999]))


def test_illegal_action_penalized_ends_the_episode_untouched():
    """illegal_action='penalize': reward -penalty, terminated, and the game state unchanged."""
    core = GinCore(4, seed=0, config={"illegal_action": "penalize", "illegal_penalty": 3.0})
    core.reset()
    before = core.observe()
    masks = core.action_masks()
    actions = random_actions(masks, np.random.default_rng(0))
    actions[1] = next(a for a in range(N_ACTIONS) if not masks[1, a])
    result = core.step(actions)
    assert result.illegal.tolist() == [False, True, False, False]
    assert result.terminated[1] and result.reward[1] == -3.0 and not core.awaiting[1]
    np.testing.assert_array_equal(core.observe(np.array([1]))[0], before[1])


# ---------------------------------------------------------------------- masks and determinism
def _accepts(engine: GinEngine, game: int, action: int) -> bool:
    """Whether a one-game copy of ``game`` accepts ``action`` (the engine's own legality)."""
    one = GinEngine(1, engine.rules, seed=0)
    one.state = engine.state.rows(np.array([game]))
    try:
        one.step(np.array([action]))
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("mode", ["hand", "series"])
def test_masks_equal_the_engine_legality_at_every_step(mode):
    """The agent's mask holds exactly the actions that the engine's step accepts."""
    core = GinCore(2, mode=mode, seed=9)
    core.reset()
    rng = np.random.default_rng(4)
    for _ in range(15):
        masks = core.action_masks()
        for game in range(2):
            accepted = [_accepts(core.engine, game, a) for a in range(N_ACTIONS)]
            assert masks[game].tolist() == accepted
        core.step(random_actions(masks, rng))
        core.reset(~core.awaiting)


def test_a_game_plays_the_same_alone_and_in_a_batch():
    """Game i of a batch seeded s equals a single game seeded s + i (opponent included)."""
    batch = GinCore(6, seed=100, mode="series")
    singles = [GinCore(1, seed=100 + i, mode="series") for i in range(6)]
    batch.reset()
    for one in singles:
        one.reset()
    rngs = [np.random.default_rng(i) for i in range(6)]
    for _ in range(100):
        masks = batch.action_masks()
        actions = np.array([rngs[i].choice(np.flatnonzero(masks[i])) for i in range(6)])
        result = batch.step(actions)
        batch.reset(~batch.awaiting)
        for i, one in enumerate(singles):
            r = one.step(actions[i : i + 1])
            assert r.reward[0] == result.reward[i] and r.terminated[0] == result.terminated[i]
            one.reset(~one.awaiting)
            np.testing.assert_array_equal(one.observe()[0], batch.observe()[i])


@pytest.mark.parametrize("mode", ["hand", "series"])
def test_autoreset_equals_step_then_reset(mode):
    """step(autoreset=True) equals step() then observe and reset of the ended games."""
    rules = RulesConfig(knock_limit=25, game_target=30)
    merged = GinCore(256, opponent=KnockFirst(), mode=mode, rules=rules, seed=13)
    plain = GinCore(256, opponent=KnockFirst(), mode=mode, rules=rules, seed=13)
    merged.reset()
    plain.reset()
    rng = np.random.default_rng(6)
    ended = 0
    for _ in range(60):
        actions = random_actions(merged.action_masks(), rng)
        a = merged.step(actions, autoreset=True)
        b = plain.step(actions)
        done = b.terminated | b.truncated
        np.testing.assert_array_equal(a.final_rows, np.flatnonzero(done))
        np.testing.assert_array_equal(a.final_obs, plain.observe(np.flatnonzero(done)))
        plain.reset(done)
        for name in ("reward", "terminated", "truncated", "hands_ended", "hand_score"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        np.testing.assert_array_equal(merged.observe(), plain.observe())
        np.testing.assert_array_equal(merged._pending.hand_score, plain._pending.hand_score)
        ended += int(done.sum())
    np.testing.assert_array_equal(merged.redeals, plain.redeals)
    assert ended > 20
    assert mode == "series" or merged.redeals.sum() > 0  # hand mode hit the redeal path


# ---------------------------------------------------------------------- no leak
def _one_game(engine: GinEngine, game: int) -> GinEngine:
    one = GinEngine(1, engine.rules, seed=0)
    one.state = engine.state.rows(np.array([game]))
    return one


def _one_sheet(sheets: ScoreSheets, game: int) -> ScoreSheets:
    one = ScoreSheets(1, sheets.rules)
    for name in ("scores", "entered", "boxes", "game_winners", "finished", "series_winner"):
        getattr(one, name)[0] = getattr(sheets, name)[game]
    return one


def _reshuffle_hidden(engine: GinEngine, seat: int, rng: np.random.Generator) -> GinEngine:
    """Copy a one-game engine, dealing anew the cards hidden from ``seat``.

    The opponent's cards not known to ``seat`` and the stock are shuffled together.
    """
    twin = _one_game(engine, 0)
    s, opp = twin.state, 1 - seat
    hidden = np.flatnonzero(s.hands[0, opp] & ~s.known[0, opp])
    pos = int(s.stock_pos[0])
    pool = rng.permutation(np.concatenate([hidden, s.deck[0, pos:].astype(np.int64)]))
    s.hands[0, opp, hidden] = False
    s.hands[0, opp, pool[: hidden.size]] = True
    s.deck[0, pos:] = pool[hidden.size :]
    twin.check_invariants()
    return twin


@pytest.mark.parametrize("mode", ["hand", "series"])
def test_observation_ignores_opponent_hidden_cards_and_stock_order(mode):
    """Reshuffling the opponent's unknown cards and the stock never changes a seat's view."""
    core = GinCore(32, mode=mode, seed=21)
    core.reset()
    rng = np.random.default_rng(5)
    changed = 0
    for _ in range(30):
        for game in range(0, 32, 4):
            one = _one_game(core.engine, game)
            sheet = _one_sheet(core.sheets, game) if core.sheets is not None else None
            for seat in (0, 1):
                view = encode_observations(one, np.array([seat]), sheet)
                twin = _reshuffle_hidden(one, seat, rng)
                changed += int((twin.state.hands != one.state.hands).any())
                np.testing.assert_array_equal(
                    encode_observations(twin, np.array([seat]), sheet), view
                )
        core.step(random_actions(core.action_masks(), rng))
        core.reset(~core.awaiting)
    assert changed > 100  # the twins really differed


# ---------------------------------------------------------------------- layering
def test_engine_and_envs_import_no_heavy_frameworks():
    """hgin_env and its engine never import gymnasium/torch; hgin_env.envs never imports torch."""
    code = (
        "import sys, hgin_env, hgin_env.engine;"
        "assert 'gymnasium' not in sys.modules and 'torch' not in sys.modules;"
        "import hgin_env.envs, hgin_env.envs.gym_env, hgin_env.envs.vector_env;"
        "assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules;"
        "import gymnasium; env = gymnasium.make('HollywoodGin-v1'); env.reset(seed=0)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_make_with_module_prefix_registers_on_import():
    """gymnasium.make('hgin_env:HollywoodGin-v1') works in a fresh interpreter."""
    code = (
        "import gymnasium; env = gymnasium.make('hgin_env:HollywoodGin-v1', mode='series');"
        "obs, info = env.reset(seed=1); assert info['action_mask'].any()"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


class _RowsRecorder:
    """A first-legal-action opponent that records the game indices of each call."""

    def __init__(self) -> None:
        self.calls: list[np.ndarray] = []

    def act(self, observations, action_masks, rows=None):
        self.calls.append(np.asarray(rows))
        return np.asarray(action_masks).argmax(axis=1)


def test_opponent_that_takes_rows_gets_the_game_indices_of_its_rows():
    """A policy whose act takes ``rows`` receives the batch indices of the games it plays."""
    bot = _RowsRecorder()
    core = GinCore(6, opponent=bot, seed=3)
    core.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        core.step(random_legal_actions(core.action_masks(), rng), autoreset=True)
    assert bot.calls
    for rows in bot.calls:
        assert rows.dtype.kind == "i" and np.all((rows >= 0) & (rows < 6))
        assert np.all(core.agent_seat[rows] >= 0)


def test_step_reports_who_scored_and_who_knocked_each_hand():
    """hand_result and agent_knocked are the engine's winner and knocker, seen from the agent.

    With ``undercut_bonus: 0`` an undercut at equal deadwood scores 0 points, so neither
    fact can be read from ``hand_score``'s sign alone.
    """
    core = GinCore(256, seed=11, rules={"undercut_bonus": 0})
    core.reset()
    rng = np.random.default_rng(4)
    seen: set[str] = set()
    for _ in range(300):
        seats = core.agent_seat.copy()
        result = core.step(random_actions(core.action_masks(), rng))
        ended = result.hands_ended > 0
        s = core.engine.state
        sign = np.where(s.winner == seats, 1, np.where(s.winner < 0, 0, -1))
        np.testing.assert_array_equal(result.hand_result[ended], sign[ended])
        np.testing.assert_array_equal(result.agent_knocked[ended], (s.knocker == seats)[ended])
        assert not result.agent_knocked[~ended].any() and not result.hand_result[~ended].any()
        undercut = ended & (result.outcome == Outcome.UNDERCUT)
        assert (result.hand_result[undercut & result.agent_knocked] == -1).all()
        seen.update(Outcome(int(o)).name for o in result.outcome[ended & result.agent_knocked])
        core.reset(~core.awaiting)
    assert "KNOCK" in seen
