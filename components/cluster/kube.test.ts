import * as assert from "node:assert/strict";
import { patchFieldManager } from "./kube";

describe("a patch's named field manager", () => {
  it("is the patch's name after the library's, and at most the 128 characters the API server takes (ValidateManagedFields), still one per patch", () => {
    assert.deepEqual(patchFieldManager("infra-router"), {
      "pulumi.com/patchFieldManager": "openshift-topology-infra-router",
    });
    const long = (end: string) =>
      patchFieldManager(`${"p".repeat(150)}-${end}`)["pulumi.com/patchFieldManager"];
    assert.equal(long("router").length, 128);
    assert.equal(long("router"), long("router"), "the same name for the same patch, run after run");
    assert.notEqual(long("router"), long("registry"));
  });
});
