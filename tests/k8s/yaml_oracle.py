#!/usr/bin/env python3
"""What the libyaml family makes of a YAML file, for tests/k8s/yaml_lenient_test.cc.

kubectl reads manifests with go-yaml, a Go port of libyaml. python3-yaml
(Debian) holds two readers of that family: PyYAML's pure-Python one
(yaml.safe_load) and its binding of libyaml itself (yaml.CSafeLoader).
Prints one JSON object:
  safe_load    "ok" or the pure-Python reader's error
  c_safe_load  "ok" or libyaml's error
  tree         the documents from libyaml with every scalar as its text (no
               type resolution, as railkit keeps scalars) and merge keys
               applied
"""
import json
import re
import sys

import yaml
from yaml.constructor import SafeConstructor
from yaml.cyaml import CParser
from yaml.resolver import BaseResolver


class TextLoader(CParser, SafeConstructor, BaseResolver):
    """libyaml's parser; scalars stay text; `<<` still merges."""

    def __init__(self, stream):
        CParser.__init__(self, stream)
        SafeConstructor.__init__(self)
        BaseResolver.__init__(self)


TextLoader.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"])


def verdict(text, loader):
    try:
        list(yaml.load_all(text, Loader=loader))
        return "ok"
    except yaml.YAMLError as error:
        return " ".join(str(error).split())


def main():
    with open(sys.argv[1], encoding="utf-8", newline="") as source:
        text = source.read()
    out = {
        "safe_load": verdict(text, yaml.SafeLoader),
        "c_safe_load": verdict(text, yaml.CSafeLoader),
        "tree": None,
    }
    if out["c_safe_load"] == "ok":
        docs = list(yaml.load_all(text, Loader=TextLoader))
        # An empty document is null to PyYAML and an empty scalar to railkit.
        out["tree"] = ["" if doc is None else doc for doc in docs]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
