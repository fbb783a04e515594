/**
 * Names and field managers as pulumi-kubernetes' Check and checkpoint give them (metadata/naming.go,
 * provider.go fieldManagerName and checkpointObject).
 */
import * as assert from "node:assert/strict";
import { isSecret, reveal, secret } from "../secrets";
import { checkKubeInputs, checkpointObject, fieldManagerName, isAutonamed } from "./kube-check";

const URN = "urn:pulumi:dev::p::kubernetes:core/v1:ConfigMap::settings";

describe("Kubernetes inputs as pulumi-kubernetes' Check returns them", () => {
  it("names an unnamed object after its resource with 8 random hex characters and marks it autonamed (AssignNameIfAutonamable)", () => {
    const checked = checkKubeInputs(URN, false, { metadata: { namespace: "default" } }, undefined);
    const metadata = checked.metadata as { name: string; annotations: Record<string, string> };
    assert.match(metadata.name, /^settings-[0-9a-f]{8}$/);
    assert.ok(isAutonamed(checked));
    const again = checkKubeInputs(URN, false, { metadata: { namespace: "default" } }, undefined);
    assert.notEqual((again.metadata as { name: string }).name, metadata.name, "drawn anew");
  });

  it("names an object whose metadata is secret as a whole, which stays secret", () => {
    const checked = checkKubeInputs(URN, false, { metadata: secret({ namespace: "default" }) }, undefined);
    assert.ok(isSecret(checked.metadata));
    assert.match((reveal(checked.metadata) as { name: string }).name, /^settings-[0-9a-f]{8}$/);
  });

  it("keeps the old autoname on later revisions, and a given name as given (AdoptOldAutonameIfUnnamed, IsNamed)", () => {
    const first = checkKubeInputs(URN, false, { metadata: {} }, undefined);
    const next = checkKubeInputs(URN, false, { metadata: {}, data: { a: "b" } }, first);
    assert.deepEqual(next.metadata, first.metadata);
    const named = { metadata: { name: "given" } };
    assert.equal(checkKubeInputs(URN, false, named, first), named);
  });

  it("refuses an unnamed Patch and generateName under server-side apply (Check)", () => {
    assert.throws(
      () => checkKubeInputs(URN, true, { metadata: {} }, undefined),
      /patch resources require the `.metadata.name` field to be set/,
    );
    assert.throws(
      () => checkKubeInputs(URN, false, { metadata: { generateName: "x-" } }, undefined),
      /generateName` field is not supported in Server-Side Apply mode/,
    );
  });

  it("takes the field manager from the annotation, else the state, else draws one (fieldManagerName)", () => {
    const drawn = fieldManagerName(URN, {}, undefined);
    assert.match(drawn, /^pulumi-kubernetes-[0-9a-f]{8}$/);
    const inputs = { data: { a: "1" } };
    const state = checkpointObject(inputs, { apiVersion: "v1", kind: "ConfigMap" }, drawn, undefined);
    assert.deepEqual(state, {
      apiVersion: "v1",
      kind: "ConfigMap",
      __inputs: inputs,
      __initialApiVersion: "v1",
      __fieldManager: drawn,
    });
    assert.equal(fieldManagerName(URN, {}, state), drawn);
    const annotated = { metadata: { annotations: { "pulumi.com/patchFieldManager": "mine" } } };
    assert.equal(fieldManagerName(URN, annotated, state), "mine");
    assert.equal(
      checkpointObject(inputs, { apiVersion: "v2" }, drawn, state).__initialApiVersion,
      "v1",
      "the first apiVersion stays",
    );
  });
});
