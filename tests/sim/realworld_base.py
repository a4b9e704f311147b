"""Base verdicts of the real-log corpus, handed from one check to the next.

tests/realworld.sh diagnoses every case as it is; tests/realworld_invariance.sh
needs the same verdicts as the base its changed copies must match. The first
writes them here and the second reads them instead of running every case
again (make orders the two). A file written by another build of denpex, with
other signature files, or for another corpus is not used: the verdicts are
keyed by a stamp of all three.
"""

import hashlib
import json
import os


def stamp(denpex, corpus):
    """What the verdicts depend on: the binary, the configuration it reads
    (DENPEX_CONF_DIR's files) and the corpus directory."""
    h = hashlib.sha256()
    with open(denpex, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    conf = os.environ.get("DENPEX_CONF_DIR", "")
    h.update(b"\0conf\0" + conf.encode())
    if conf and os.path.isdir(conf):
        for root, dirs, names in os.walk(conf):
            dirs.sort()
            for fn in sorted(names):
                p = os.path.join(root, fn)
                h.update(b"\0" + os.path.relpath(p, conf).encode() + b"\0")
                with open(p, "rb") as f:
                    h.update(f.read())
    h.update(b"\0corpus\0" + os.path.abspath(corpus).encode())
    return h.hexdigest()


def write(path, denpex, corpus, verdicts):
    """verdicts: case name -> (class, rank, host), or None where the case
    gave no verdict (those the reader diagnoses itself)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"stamp": stamp(denpex, corpus),
                   "verdicts": {k: list(v) if v else None for k, v in verdicts.items()}}, f)
    os.replace(tmp, path)


def read(path, denpex, corpus):
    """The verdicts written for this denpex, configuration and corpus, as
    name -> (class, rank, host); {} when there are none or they are another's."""
    try:
        with open(path) as f:
            d = json.load(f)
        if d.get("stamp") != stamp(denpex, corpus):
            return {}
        return {k: tuple(v) for k, v in d["verdicts"].items() if isinstance(v, list) and len(v) == 3}
    except (OSError, ValueError, KeyError, AttributeError, TypeError):
        return {}
