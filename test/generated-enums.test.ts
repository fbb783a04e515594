import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { GENERATED_MODULE, renderEnumsModule } from "../scripts/generate-enums";
import { CRDS_DIR } from "./seeds";

describe("generated enumerations", () => {
  it("match the upstream CRDs and OpenAPI definitions they are generated from", function () {
    if (!fs.existsSync(CRDS_DIR)) this.skip();
    assert.equal(
      fs.readFileSync(GENERATED_MODULE, "utf8"),
      renderEnumsModule(CRDS_DIR),
      "builders/generated/enums.ts is out of date: run npx ts-node --transpile-only scripts/generate-enums.ts",
    );
  });
});
