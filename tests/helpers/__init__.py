"""The suite's helpers, one module per concept; a test module imports them, never another test.

- ``deck``: deck orders from card strings, and drivers that play actions written as text;
- ``actions``: random legal actions (``random_legal``, ``knock_or_legal``, ``mixed_actions``);
- ``envs``: the batched-env cases (``CASES``) and their single envs (``singles_for``);
- ``policies``: a policy plays legally; shipped models' knocks; MaskablePPO zips of chosen spaces;
- ``training``: tiny training runs (``TINY``, ``TINY_CARDS``) and their TensorBoard scalars;
- ``reports``: the evaluator's JSON schema and the command lines' one-line errors;
- ``search``: positions for the search (``simple_positions``, ``redeal_hidden``,
  ``search_decision``);
- ``processes``: the processes and sockets a run leaves (``/proc``).
"""
