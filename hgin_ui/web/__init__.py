"""The web table: play, watch and replay Hollywood Gin in the browser (``play.py --web``).

``server`` is a Starlette app of JSON endpoints plus a static page (``static/``: plain
HTML, CSS and JavaScript, no build step, nothing loaded from the network), served by
uvicorn on 127.0.0.1. ``games`` holds the games on the server; ``views`` builds every
message the page receives, so what a person may see is decided in one place.
"""
