"""Compute clusters the toolkit runs on: ``ray`` starts or joins a Ray cluster.

Both the Ray-sharded evaluation (``agents.evaluation.ray_shards``) and the RLlib training
backend (``agents.training.rllib``) use it; nothing is imported here, since Ray is an
optional extra loaded only by the modules that need it.
"""
