"""YAML read as plain data: bounded alias expansion, no duplicate keys.

Aliases (``*name``, ``<<: *name`` merges) are accepted, since PyYAML's own dumper writes them for
repeated lists, but a document they expand past ``MAX_EXPANDED_VALUES`` values is refused before
anything is built from it: a few hundred bytes of nested aliases ("billion laughs") would otherwise
grow to gigabytes once validated. A key given twice in one mapping is refused, naming its line,
instead of the last one silently winning.
"""

from collections.abc import Hashable

import yaml

MAX_EXPANDED_VALUES = 100_000
"""Values (scalars, lists, mappings) a document may count with its aliases expanded, when it has aliases."""

_MERGE = "tag:yaml.org,2002:merge"


class PlainDataLoader(yaml.SafeLoader):
    def get_single_node(self):
        node = super().get_single_node()
        if node is not None:
            _check_expansion(node)
        return node

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == _MERGE:
                continue  # merged keys may be overridden: that is what a merge is for
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, Hashable):
                continue  # the base constructor reports it
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r} (line {key_node.start_mark.line + 1})", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def _check_expansion(root: yaml.Node) -> None:
    sizes: dict[int, int] = {}
    total = _expanded_size(root, sizes, set())
    if total > MAX_EXPANDED_VALUES and total > len(sizes):  # more than the distinct nodes: aliases expand it
        raise yaml.composer.ComposerError(
            None, None, f"aliases expand this document to {total:,} values, more than the {MAX_EXPANDED_VALUES:,} allowed; write it without them", None
        )


def _expanded_size(node: yaml.Node, sizes: dict[int, int], open_nodes: set[int]) -> int:
    """Values under ``node`` counting every alias as a copy; each distinct node is measured once."""
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in open_nodes:
        raise yaml.composer.ComposerError(None, None, "an alias refers to a list or mapping that holds it (a recursive structure)", node.start_mark)
    open_nodes.add(key)
    if isinstance(node, yaml.SequenceNode):
        size = 1 + sum(_expanded_size(child, sizes, open_nodes) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size = 1 + sum(_expanded_size(k, sizes, open_nodes) + _expanded_size(v, sizes, open_nodes) for k, v in node.value)
    else:
        size = 1
    open_nodes.discard(key)
    sizes[key] = size
    return size
