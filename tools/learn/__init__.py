"""The learning pipeline of ``hard``'s value model (issue #28): generate, train, export.

Run ``python -m tools.learn --help`` from the repository root, with the ``learn``
extra installed (``pip install -e '.[learn]'``: numpy for training; the game
itself only reads the exported JSON, :mod:`zsy_lan.bots.value`).
"""
