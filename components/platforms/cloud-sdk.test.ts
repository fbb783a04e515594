import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import Module = require("node:module");
import { azureCloud, resetMocks, valueOf } from "../../test/mocks";
import { InfraNodePool } from "../infra-node-pool/infra-node-pool";
import { WindowsNodePool } from "../windows-node-pool/windows-node-pool";
import { CloudSdk } from "./cloud-sdk";

type Load = (request: string, ...rest: unknown[]) => unknown;
const loader = Module as unknown as { _load: Load };

/**
 * Runs `body` as in a program that did not install `sdk`: node cannot load the package's modules. The
 * hook is on `Module._load`, before node's caches, which would otherwise answer for a module another
 * suite of the same worker loaded.
 */
async function without(sdk: CloudSdk, body: () => Promise<void>): Promise<void> {
  const load = loader._load;
  loader._load = function (request, ...rest) {
    if (request === sdk || request.startsWith(`${sdk}/`)) {
      throw Object.assign(new Error(`Cannot find module '${request}'`), { code: "MODULE_NOT_FOUND" });
    }
    return load.call(this, request, ...rest);
  };
  try {
    await body();
  } finally {
    loader._load = load;
  }
}

function asksToInstall(sdk: CloudSdk, propertyPath: string) {
  return (e: unknown) => {
    assert.ok(pulumi.InputPropertyError.isInstance(e), `not an InputPropertyError: ${String(e)}`);
    assert.equal(e.propertyPath, propertyPath);
    assert.match(e.reason, new RegExp(`needs the ${sdk} package.*npm install ${sdk}`));
    // A lookup for a property left out names that property as the other way out.
    if (propertyPath !== "cloudLookups")
      assert.match(e.reason, new RegExp(`^not given.*: give ${propertyPath} \\(`));
    return true;
  };
}

describe("Cloud SDKs, optional peer dependencies", () => {
  beforeEach(() => resetMocks());

  it("are not needed where no lookup runs: a pool with its zones given builds without @pulumi/aws", async () => {
    await without("@pulumi/aws", async () => {
      const pool = new InfraNodePool("infra", { zones: ["us-east-2a"] });
      assert.equal((await valueOf(pool.machineSetNames)).length, 1);
    });
  });

  it("name @pulumi/aws at cloudLookups when AWS lookups run without it", async () => {
    await without("@pulumi/aws", async () => {
      const pool = new InfraNodePool("infra", { cloudLookups: true });
      await assert.rejects(valueOf(pool.machineSetNames), asksToInstall("@pulumi/aws", "cloudLookups"));
    });
  });

  it("name @pulumi/aws at image when a Windows AMI is looked up without it", async () => {
    await without("@pulumi/aws", async () => {
      const pool = new WindowsNodePool("win", { zones: ["us-east-2a"] });
      await assert.rejects(valueOf(pool.machineSetNames), asksToInstall("@pulumi/aws", "image"));
    });
  });

  it("name @pulumi/azure-native at region when the resource group's location is read without it", async () => {
    await resetMocks(azureCloud());
    await without("@pulumi/azure-native", async () => {
      const pool = new InfraNodePool("infra", { zones: ["1"] });
      await assert.rejects(valueOf(pool.machineSetNames), asksToInstall("@pulumi/azure-native", "region"));
    });
  });

  it("are not needed for an Azure Windows pool without image: WMCO's Marketplace image is a table, not a lookup", async () => {
    await resetMocks(azureCloud());
    await without("@pulumi/azure-native", async () => {
      const pool = new WindowsNodePool("win", { zones: ["1"], region: "centralus" });
      assert.equal((await valueOf(pool.machineSetNames)).length, 1);
    });
  });
});
