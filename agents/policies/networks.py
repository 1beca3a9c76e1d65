"""The networks a trained policy is: their spec (kind and sizes) and how each is built.

A ``network_spec`` is the ``network`` part of a saved policy's ``hgin_policy.json``
(``agents.policies.saved``): ``cards`` is ``agents.policies.card_layers.CardActorCritic``,
``mlp`` is ``agents.policies.rllib_net.MaskedActorCritic``. Torch is imported only when a
network is built.
"""

from __future__ import annotations

from typing import Any

from hgin_env.envs.observation import OBS_DIM, OBS_DIMS, layout_version


def network_spec(
    policy: str,
    net_arch: tuple[int, ...] | list[int],
    obs_dim: int = OBS_DIM,
    activation: str = "relu",
    channels: int = 32,
    blocks: int = 3,
) -> dict[str, Any]:
    """The ``network`` part of ``hgin_policy.json``: what ``build_network`` rebuilds.

    Args:
        policy: ``mlp`` (``MaskedActorCritic``) or ``cards`` (``CardActorCritic``).
        net_arch: hidden sizes (of each MLP; of the card network's pickup and value MLPs).
        obs_dim: the network's input width (with a privileged block, if it reads one).
        activation: the MLP's activation (``mlp`` only).
        channels: the card trunk's channels (``cards`` only).
        blocks: the card trunk's residual blocks (``cards`` only).
    """
    spec: dict[str, Any] = {"policy": policy, "obs_dim": int(obs_dim), "net_arch": list(net_arch)}
    if policy == "cards":
        spec.update(channels=int(channels), blocks=int(blocks))
    else:
        spec["activation"] = activation
    return spec


def build_network(spec: dict[str, Any], ortho_init: bool = False) -> Any:
    """The torch network a ``network_spec`` describes (a spec without ``policy``: an MLP)."""
    if spec.get("policy", "mlp") == "cards":
        from agents.policies.card_layers import CardActorCritic

        return CardActorCritic(
            spec["obs_dim"], spec["net_arch"], spec["channels"], spec["blocks"], ortho_init
        )
    from agents.policies.rllib_net import MaskedActorCritic

    return MaskedActorCritic(spec["obs_dim"], spec["net_arch"], spec["activation"], ortho_init)


def play_width(spec: dict[str, Any]) -> int:
    """How many observation entries the network plays from.

    An MLP reads its whole input; the card network reads the plain observation of its
    layout (it ignores a privileged block it was trained with, and a layout-1 network
    reads the first 394 entries).
    """
    width = int(spec["obs_dim"])
    if spec.get("policy", "mlp") != "cards":
        return width
    return OBS_DIMS[layout_version(width)]
