import * as assert from "node:assert/strict";
import { closest, isDnsLabel, isDnsSubdomain, isLabelValue, isQualifiedName } from "./names";

describe("primitives/names: apimachinery's name rules", () => {
  it("DNS labels: 1-63 lower-case alphanumerics or '-', alphanumeric at both ends", () => {
    for (const ok of ["a", "infra", "windows-worker", "0abc9", "a".repeat(63)])
      assert.equal(isDnsLabel(ok), true, ok);
    for (const bad of ["", "-a", "a-", "A", "a.b", "a_b", "a".repeat(64), 7, undefined])
      assert.equal(isDnsLabel(bad), false, String(bad));
  });

  it("DNS subdomains: dot-separated labels, at most 253 characters", () => {
    for (const ok of [
      "a",
      "a.b",
      "openshift-machine-api",
      "99-worker.conf",
      `${"a".repeat(63)}.${"b".repeat(63)}`,
    ])
      assert.equal(isDnsSubdomain(ok), true, ok);
    const long = Array.from({ length: 4 }, () => "a".repeat(63)).join(".");
    for (const bad of ["", ".a", "a.", "a..b", "A.b", "a_b", long, null])
      assert.equal(isDnsSubdomain(bad), false, String(bad));
  });

  it("qualified names: an optional DNS-subdomain prefix, then a name of at most 63 characters", () => {
    for (const ok of ["app", "node-role.kubernetes.io/infra", "Kind_of.Name-1", "a/B", `p/${"n".repeat(63)}`])
      assert.equal(isQualifiedName(ok), true, ok);
    for (const bad of [
      "",
      "/a",
      "a/",
      "a/b/c",
      "Upper.example.com/x",
      "-a",
      "a_",
      "n".repeat(64),
      `${"p".repeat(254)}/n`,
    ])
      assert.equal(isQualifiedName(bad), false, bad);
  });

  it("label values: empty, or at most 63 characters starting and ending alphanumeric", () => {
    for (const ok of ["", "reserved", "us-east-2a", "A_b.c", "v".repeat(63)])
      assert.equal(isLabelValue(ok), true, ok);
    for (const bad of ["-a", "a-", "a b", "a/b", "v".repeat(64), undefined])
      assert.equal(isLabelValue(bad), false, String(bad));
  });

  it("closest: the known name a typo is near, ignoring case, and none when nothing is near", () => {
    const known = ["scaleDown", "scaleUp", "maxNodesTotal"];
    assert.equal(closest("scaledown", known), "scaleDown");
    assert.equal(closest("scaleUpp", known), "scaleUp");
    assert.equal(closest("maxNodes", known), undefined);
    assert.equal(closest("expander", known), undefined);
  });
});
