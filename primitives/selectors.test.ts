import * as assert from "node:assert/strict";
import {
  LabelSelector,
  labelSelectorQuery,
  selectorIsEmpty,
  selectorMatches,
  selectorString,
} from "./selectors";

describe("primitives/selectors: metav1.LabelSelector as Kubernetes evaluates it", () => {
  const node = { "node-role.kubernetes.io/infra": "", "topology.kubernetes.io/zone": "us-east-2a" };

  it("an empty selector selects everything, a missing one nothing", () => {
    assert.equal(selectorMatches({}, node), true);
    assert.equal(selectorMatches({}, undefined), true);
    assert.equal(selectorMatches({ matchLabels: {}, matchExpressions: [] }, {}), true);
    assert.equal(selectorMatches(undefined, node), false);
    assert.equal(selectorMatches(null, node), false);
    assert.equal(selectorIsEmpty({}), true);
    assert.equal(selectorIsEmpty(null), true);
    assert.equal(selectorIsEmpty({ matchLabels: { a: "" } }), false);
    assert.equal(selectorIsEmpty({ matchExpressions: [{ key: "a", operator: "Exists" }] }), false);
  });

  it("matchLabels: every pair, an empty value included, must be present and equal", () => {
    assert.equal(selectorMatches({ matchLabels: { "node-role.kubernetes.io/infra": "" } }, node), true);
    assert.equal(selectorMatches({ matchLabels: { "node-role.kubernetes.io/worker": "" } }, node), false);
    assert.equal(
      selectorMatches(
        { matchLabels: { "node-role.kubernetes.io/infra": "", "topology.kubernetes.io/zone": "b" } },
        node,
      ),
      false,
    );
    // Inherited properties are not labels.
    assert.equal(selectorMatches({ matchLabels: { constructor: "" } }, {}), false);
  });

  it("In, NotIn, Exists and DoesNotExist", () => {
    const zone = "topology.kubernetes.io/zone";
    const cases: Array<[LabelSelector, boolean]> = [
      [{ matchExpressions: [{ key: zone, operator: "In", values: ["us-east-2a", "us-east-2b"] }] }, true],
      [{ matchExpressions: [{ key: zone, operator: "In", values: ["us-east-2c"] }] }, false],
      [{ matchExpressions: [{ key: "missing", operator: "In", values: [""] }] }, false],
      [{ matchExpressions: [{ key: zone, operator: "NotIn", values: ["us-east-2c"] }] }, true],
      [{ matchExpressions: [{ key: zone, operator: "NotIn", values: ["us-east-2a"] }] }, false],
      [{ matchExpressions: [{ key: "missing", operator: "NotIn", values: ["x"] }] }, true],
      [{ matchExpressions: [{ key: zone, operator: "Exists" }] }, true],
      [{ matchExpressions: [{ key: "missing", operator: "Exists" }] }, false],
      [{ matchExpressions: [{ key: "missing", operator: "DoesNotExist" }] }, true],
      [{ matchExpressions: [{ key: zone, operator: "DoesNotExist" }] }, false],
    ];
    for (const [selector, expected] of cases)
      assert.equal(selectorMatches(selector, node), expected, selectorString(selector));
  });

  it("matchLabels and matchExpressions are ANDed", () => {
    const selector: LabelSelector = {
      matchLabels: { "node-role.kubernetes.io/infra": "" },
      matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "NotIn", values: ["us-east-2a"] }],
    };
    assert.equal(selectorMatches(selector, node), false);
    assert.equal(selectorMatches(selector, { ...node, "topology.kubernetes.io/zone": "us-east-2b" }), true);
  });

  it("a requirement Kubernetes refuses selects nothing, whatever the labels", () => {
    const refused: LabelSelector[] = [
      { matchExpressions: [{ key: "missing", operator: "NotIn", values: [] }] },
      { matchExpressions: [{ key: "missing", operator: "NotIn" }] },
      {
        matchExpressions: [
          { key: "topology.kubernetes.io/zone", operator: "Exists", values: ["us-east-2a"] },
        ],
      },
      { matchExpressions: [{ key: "missing", operator: "DoesNotExist", values: ["x"] }] },
      { matchExpressions: [{ key: "missing", operator: "Absent" as never }] },
    ];
    for (const selector of refused)
      assert.equal(selectorMatches(selector, node), false, JSON.stringify(selector));
  });

  it("prints as LabelSelectorAsSelector(...).String(): terms sorted by key, values sorted", () => {
    assert.equal(
      selectorString({
        matchLabels: { b: "1" },
        matchExpressions: [
          { key: "a", operator: "In", values: ["y", "x"] },
          { key: "c", operator: "DoesNotExist" },
          { key: "d", operator: "Exists" },
          { key: "e", operator: "NotIn", values: ["z"] },
        ],
      }),
      "a in (x,y),b=1,!c,d,e notin (z)",
    );
  });

  it("as a query: what LabelSelectorAsSelector(...).String() prints, set terms included (apimachinery labels.Parse reads it)", () => {
    assert.equal(labelSelectorQuery({ matchLabels: { b: "x", a: "" } }), "a=,b=x");
    assert.equal(
      labelSelectorQuery({
        matchLabels: { a: "" },
        matchExpressions: [
          { key: "b", operator: "Exists" },
          { key: "c", operator: "NotIn", values: ["y", "x"] },
          { key: "d", operator: "DoesNotExist" },
        ],
      }),
      "a=,b,c notin (x,y),!d",
    );
  });

  it("as a query: undefined for a selector with no requirement or one NewRequirement refuses", () => {
    assert.equal(labelSelectorQuery({}), undefined);
    assert.equal(labelSelectorQuery({ matchExpressions: [] }), undefined);
    assert.equal(labelSelectorQuery(undefined), undefined);
    assert.equal(
      labelSelectorQuery({ matchExpressions: [{ key: "a", operator: "In", values: [] }] }),
      undefined,
    );
    assert.equal(
      labelSelectorQuery({ matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] }),
      undefined,
    );
    assert.equal(labelSelectorQuery({ matchLabels: { "a b": "" } }), undefined);
    assert.equal(labelSelectorQuery({ matchLabels: { a: "x,y" } }), undefined);
  });
});
