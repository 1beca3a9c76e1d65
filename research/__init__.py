"""Research: the experiment scripts, their tests, the lab log, and configs of no shipped model.

The product (``hgin_env``, ``agents``, ``hgin_ui``, ``hgin_cli``) never imports this package
(``tests/test_layers.py``); CI runs its tests (``research/tests``).
"""
