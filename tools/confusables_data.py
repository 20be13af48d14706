"""Make ``zsy_lan/text/confusables.txt`` from Unicode's ``confusables.txt`` (UTS #39).

The game compares nicknames by their confusable skeleton
(:mod:`zsy_lan.text.lookalike`), which needs the mapping of Unicode's security
data file. That file is 650 KB, most of it comments (the characters drawn and
their names); the game needs only the two code point columns, so this keeps
Unicode's header (its date, version and terms of use) and one line
``SOURCE;TARGET`` per mapping: about 100 KB. Run it when Unicode publishes a
new version (https://www.unicode.org/Public/security/latest/confusables.txt)::

    python tools/confusables_data.py confusables.txt > zsy_lan/text/confusables.txt
"""

from __future__ import annotations

import sys
from pathlib import Path


def compact(text: str) -> str:
    """Unicode's header lines, then ``SOURCE;TARGET`` (hex code points) per mapping."""
    header: list[str] = []
    rows: list[str] = []
    for line in text.lstrip("\ufeff").splitlines():
        if line.startswith("#") and not rows:
            header.append(line)
            continue
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        fields = [f.strip() for f in data.split(";")]
        if len(fields) < 2:
            raise ValueError(f"not a confusables.txt mapping line: {line!r}")
        rows.append(f"{fields[0]};{fields[1]}")
    if not rows:
        raise ValueError("no mapping lines: is this Unicode's confusables.txt?")
    header.append("# Compacted by tools/confusables_data.py: SOURCE;TARGET per line.")
    return "\n".join(header + rows) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(compact(Path(argv[1]).read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
