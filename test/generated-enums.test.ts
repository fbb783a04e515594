import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { GENERATED_MODULE, renderEnumsModule } from "../scripts/generate-enums";
import { CRDS, PROVIDER_SPECS, requireReference } from "./reference";

describe("generated enumerations", () => {
  it("match the upstream CRDs and OpenAPI definitions they are generated from", function () {
    requireReference(this, CRDS, PROVIDER_SPECS);
    assert.equal(
      fs.readFileSync(GENERATED_MODULE, "utf8"),
      renderEnumsModule(CRDS.dir),
      "builders/generated/enums.ts is out of date: run npx ts-node --transpile-only scripts/generate-enums.ts",
    );
  });
});
