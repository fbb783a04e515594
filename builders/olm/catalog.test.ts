import * as assert from "node:assert/strict";
import { InputError, InputErrors } from "../errors";
import { checkAgainstCatalog, PackageManifestStatus } from ".";

/** A package as the package server serves it: one channel whose head supports `modes`. */
function manifest(modes?: string[]): PackageManifestStatus {
  return {
    catalogSource: "redhat-operators",
    defaultChannel: "stable",
    channels: [
      {
        name: "stable",
        currentCSV: "op.v2",
        ...(modes && {
          currentCSVDesc: {
            installModes: ["OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"].map(
              (type) => ({
                type,
                supported: modes.includes(type),
              }),
            ),
          },
        }),
        entries: [{ name: "op.v2" }, { name: "op.v1" }],
      },
    ],
  };
}

describe("a subscription against its package in the catalog", () => {
  it("passes a channel, target and startingCSV the package has", () => {
    checkAgainstCatalog(manifest(["OwnNamespace"]), {
      packageName: "op",
      channel: "stable",
      startingCSV: "op.v1",
    });
    checkAgainstCatalog(manifest(["AllNamespaces"]), {
      packageName: "op",
      channel: "stable",
      targetNamespaces: "AllNamespaces",
    });
  });

  it("checks no install mode the catalog does not state", () => {
    checkAgainstCatalog(manifest(), { packageName: "op", channel: "stable" });
  });

  it("names what the catalog has: the channels, the modes its head supports, the entries of the channel", () => {
    assert.throws(
      () => checkAgainstCatalog(manifest(["OwnNamespace"]), { packageName: "op", channel: "fast" }),
      new InputError(
        "channel",
        'package op in catalog redhat-operators has no channel "fast": its channels are stable (default stable)',
      ),
    );
    assert.throws(
      () =>
        checkAgainstCatalog(manifest(["MultiNamespace"]), {
          packageName: "op",
          channel: "stable",
          startingCSV: "op.v3",
        }),
      (e: unknown) =>
        e instanceof InputErrors &&
        e.errors.map((x) => x.propertyPath).join() === "targetNamespaces,startingCSV" &&
        e.errors[1].reason ===
          "op.v3 is not in channel stable of package op in catalog redhat-operators: its entries are op.v2, op.v1",
    );
    assert.throws(
      () => checkAgainstCatalog(manifest(["MultiNamespace"]), { packageName: "op", channel: "stable" }),
      new InputError(
        "targetNamespaces",
        "OwnNamespace (the default) is not an install mode of op.v2 (channel stable), which supports MultiNamespace",
      ),
    );
  });
});
