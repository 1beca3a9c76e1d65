"""The web table: play, watch and replay Hollywood Gin in the browser (``play.py --web``).

``server`` builds the Starlette app (``create_app``) and serves it on 127.0.0.1
(``serve``); the page is ``static/`` (plain HTML, CSS and JavaScript, no build step,
nothing loaded from the network). ``endpoints`` holds the JSON handlers, ``parsing``
reads their requests, ``guards`` decides which requests get in at all, ``catalog`` lists
the policies a request may name. ``games`` holds the games on the server; ``views``
builds every message the page receives, so what a person may see is decided in one
place; ``words`` says the log's sentences to a player named You.
"""
