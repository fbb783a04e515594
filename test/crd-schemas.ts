import * as assert from "node:assert/strict";
import { CrdSchemas } from "../simulator/schema";
import { CRDS_DIR } from "./seeds";

/**
 * Checks rendered manifests against the upstream CRDs in ../shared/crds with the simulator's own
 * validator and pruner, i.e. exactly as the test cluster (and a real API server) would treat them.
 */
let schemas: CrdSchemas | undefined;

export function crdSchemas(): CrdSchemas {
  schemas ??= CrdSchemas.load(CRDS_DIR);
  return schemas;
}

/**
 * Fails unless a CRD covers the manifest, it validates, and no field of it would be pruned. A patch is a
 * partial object, so only pruning is checked for it: required fields belong to the object it patches.
 */
export function assertMatchesCrd(manifest: object, options: { patch?: boolean } = {}): void {
  const m = manifest as { apiVersion: string; kind: string; metadata?: { name?: string } };
  const what = `${m.kind} ${m.metadata?.name ?? ""} (${m.apiVersion})`;
  const result = crdSchemas().validate(manifest);
  assert.ok(result.known, `no CRD in ${CRDS_DIR} serves ${what}`);
  assert.deepEqual(result.pruned, [], `${what} has fields the API server would prune`);
  if (!options.patch) {
    assert.deepEqual(
      result.errors.map((e) => `${e.field}: ${e.message}`),
      [],
      `${what} violates its CRD schema`,
    );
  }
}
