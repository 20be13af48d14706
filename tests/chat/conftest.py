"""tests/chat: the protocol tests' in-memory mesh (tests/protocol/proto_support.py) is shared."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "protocol"))
