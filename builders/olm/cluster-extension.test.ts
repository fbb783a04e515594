import * as assert from "node:assert/strict";
import { InputErrors } from "../errors";
import { checkExtensionAgainstCatalog, clusterExtension } from ".";

const GITOPS = {
  catalog: "redhat-operators",
  packageName: "openshift-gitops-operator",
  defaultChannel: "latest",
  channels: { latest: ["1.14.0", "1.14.1", "1.14.2"], "gitops-1.14": ["1.14.0", "1.14.1"] },
};
const paths = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return InputErrors.of(e).map((x) => `${x.propertyPath}: ${x.reason}`);
  }
  return [];
};

describe("an OLM v1 ClusterExtension (operator-controller api/v1)", () => {
  it("writes the spec operator-controller reads, leaving out what is not given", () => {
    assert.deepEqual(
      clusterExtension({
        name: "gitops",
        packageName: "openshift-gitops-operator",
        namespace: "gitops",
        serviceAccount: "installer",
        channels: ["latest"],
        version: ">=1.14.0, <1.15.0",
      }).spec,
      {
        namespace: "gitops",
        serviceAccount: { name: "installer" },
        source: {
          sourceType: "Catalog",
          catalog: {
            packageName: "openshift-gitops-operator",
            channels: ["latest"],
            version: ">=1.14.0, <1.15.0",
          },
        },
      },
    );
  });

  it("refuses what its CRD refuses, every problem at once", () => {
    assert.deepEqual(
      paths(() =>
        clusterExtension({
          name: "g",
          packageName: "Bad",
          namespace: "a.b",
          serviceAccount: "sa",
          channels: ["Stable"],
          version: "latest please",
        }),
      ).map((p) => p.split(":")[0]),
      ["packageName", "namespace", "channels[0]", "version"],
    );
  });

  it("checks channels and version range against the package as the catalog serves it, naming what there is", () => {
    assert.deepEqual(
      paths(() => checkExtensionAgainstCatalog(GITOPS, { channels: ["latest"], version: "~1.14" })),
      [],
    );
    assert.deepEqual(
      paths(() => checkExtensionAgainstCatalog(GITOPS, { channels: ["stable"], version: "2.x" })),
      [
        'channels[0]: package openshift-gitops-operator in catalog redhat-operators has no channel "stable": its channels are gitops-1.14, latest (default latest)',
      ],
    );
    assert.deepEqual(
      paths(() => checkExtensionAgainstCatalog(GITOPS, { channels: ["gitops-1.14"], version: "1.14.2" })),
      [
        'version: no bundle of package openshift-gitops-operator in catalog redhat-operators channels gitops-1.14 matches "1.14.2": its versions are 1.14.0, 1.14.1',
      ],
    );
  });
});
