"""The human front ends: the terminal game (``terminal``) and the browser table (``web``).

They sit at the command-line level, above ``agents``: a person plays or watches the
policies of ``agents`` on the engine of ``hgin_env``. Nothing below imports this package;
the CLIs (``hgin_cli.play``) do.
"""
