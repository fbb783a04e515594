"""Prints, as JSON, what a Python program (read from stdin) uses of the package's generated SDK.

Every call of a class of the module imported as `pulumi_openshift_topology` (components and input
types) with its keyword arguments, and every attribute read of a variable that holds a component. Values
are described as far as they are literal: a nested SDK call, a dict with string keys, a list, a
constant; anything else is an expression the program computes.
"""

import ast
import json
import sys

MODULE = "pulumi_openshift_topology"

tree = ast.parse(sys.stdin.read())
aliases = {
    alias.asname or alias.name
    for node in ast.walk(tree)
    if isinstance(node, ast.Import)
    for alias in node.names
    if alias.name == MODULE
}


def sdk_class(node):
    """The SDK class a call names (`openshift.InfraNodePool(...)`), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if isinstance(node.func.value, ast.Name) and node.func.value.id in aliases:
            return node.func.attr
    return None


def describe(node):
    name = sdk_class(node)
    if name:
        return {"call": name, "line": node.lineno}
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
        return {"dict": {k.value: describe(v) for k, v in zip(node.keys, node.values)}}
    if isinstance(node, (ast.List, ast.Tuple)):
        return {"list": [describe(e) for e in node.elts]}
    if isinstance(node, ast.Constant):
        return {"constant": node.value}
    return {"expression": ast.unparse(node)}


calls = [
    {
        "class": sdk_class(node),
        "line": node.lineno,
        "positional": len(node.args),
        "keywords": {k.arg: describe(k.value) for k in node.keywords},
    }
    for node in ast.walk(tree)
    if sdk_class(node)
]

holders = {
    target.id: sdk_class(node.value)
    for node in ast.walk(tree)
    if isinstance(node, ast.Assign) and sdk_class(node.value)
    for target in node.targets
    if isinstance(target, ast.Name)
}
reads = [
    {"class": holders[node.value.id], "attribute": node.attr, "line": node.lineno}
    for node in ast.walk(tree)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in holders
]

json.dump({"module": sorted(aliases), "calls": calls, "reads": reads}, sys.stdout)
