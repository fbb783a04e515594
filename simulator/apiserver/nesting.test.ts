import * as assert from "node:assert/strict";
import { parse } from "yaml";
import { yamlNestingBound } from "./negotiation";

/**
 * The bound the API server checks before handing a YAML body to the parser. kube-apiserver's decoders
 * stop at a nesting depth (Go encoding/json's maxNestingDepth, go-yaml's max depth); here the bound must
 * never fall short of the depth the yaml parser would build, whatever quotes and comments hide.
 */
describe("YAML nesting bound", () => {
  function depth(value: unknown): number {
    if (value === null || typeof value !== "object") return 0;
    return 1 + Math.max(0, ...Object.values(value).map(depth));
  }

  for (const [what, text] of [
    ["flow", "a: [[[{b: [1]}]]]"],
    ["block", "a:\n  b:\n    c:\n    - d: 1\n    - - - e"],
    ["quoted closers", 'a: [ "]", [ "]", [ "]", [1] ] ] ]'],
    ["single-quoted", "a: ['x]]'' ]', [ 'y' , [2]]]"],
    ["a comment", "a: [[ # ]]]\n  1]]"],
    ["a quote inside a plain scalar", "a: [ b'c, [ d'e, [3]]]"],
    ["JSON", '{"a":{"b":["]]]",{"c":[[[]]]}]}}'],
  ]) {
    it(`bounds ${what}`, () => {
      assert.ok(yamlNestingBound(text) >= depth(parse(text)), `${yamlNestingBound(text)} for ${text}`);
    });
  }

  it("counts brackets hidden behind quotes that do not close on their line", () => {
    assert.ok(yamlNestingBound(`a: '\n${"[".repeat(2000)}`) >= 2000);
    assert.ok(yamlNestingBound(`a: [ "x", [ "${"[".repeat(2000)}`) >= 2000);
  });

  it("stays within a small multiple of the real depth of ordinary manifests", () => {
    const manifest =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {x: '[y]'}\ndata:\n  k: v\n";
    assert.equal(depth(parse(manifest)), 3);
    assert.equal(yamlNestingBound(manifest), 6);
  });
});
