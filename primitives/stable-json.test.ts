import * as assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { stableJson } from "./stable-json";

describe("primitives/stable-json: the bytes hashed into deployed state", () => {
  it("sorts keys by code unit at every depth, integer-like keys included", () => {
    assert.equal(
      stableJson({ b: [1, { d: "x", c: null }], a: true, "10": 1, "2": 2, B: "upper" }),
      '{"10":1,"2":2,"B":"upper","a":true,"b":[1,{"c":null,"d":"x"}]}',
    );
  });

  it("equal content, any key order, gives equal bytes", () => {
    assert.equal(
      stableJson({ a: 1, b: { c: [1, 2], d: "" } }),
      stableJson({ b: { d: "", c: [1, 2] }, a: 1 }),
    );
  });

  it("leaves out undefined members and writes every other non-JSON value as null", () => {
    assert.equal(stableJson({ a: undefined, b: 1 }), '{"b":1}');
    assert.equal(stableJson(undefined), "null");
    assert.equal(stableJson([undefined, () => 1, Symbol("s")]), "[null,null,null]");
    assert.equal(stableJson({ f: () => 1 }), '{"f":null}');
    assert.equal(stableJson(new Date(0)), "{}");
    assert.equal(stableJson(NaN), "null");
    assert.equal(stableJson('a"b'), '"a\\"b"');
  });

  // Computed with the writers this one replaced (provider/dynamic/common.ts for contentHash,
  // simulator/controllers/machineconfig.ts for rendered names): a change here re-runs every deployed
  // waiter and renames every simulated rendered config.
  it("hashes as the writers it replaced did", () => {
    const sha256 = (value: unknown) => createHash("sha256").update(stableJson(value)).digest("hex");
    const machineConfig = {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfig",
      metadata: { name: "99-infra-chrony", labels: { "machineconfiguration.openshift.io/role": "infra" } },
      spec: {
        config: {
          ignition: { version: "3.4.0" },
          storage: {
            files: [
              {
                path: "/etc/chrony.conf",
                mode: 420,
                overwrite: true,
                contents: { source: "data:,pool%20169.254.169.123%20iburst%0A" },
              },
            ],
          },
        },
      },
    };
    assert.equal(sha256(machineConfig), "3b805489916e1ee3f4494ee6e1dfdc9323ed2c607d07071a9842f0ab603abcf6");
    assert.equal(
      sha256([{ b: undefined, a: [1, null, "x"], "10": true, "2": { z: 1, y: [] } }]),
      "21372a41a4f00fab0b4e15eeaac622f4ff76833f03bba4320f99e2c7bf47e981",
    );
    assert.equal(sha256(undefined), sha256(null));
  });
});
