import * as assert from "node:assert/strict";
import { CrdSchemas } from "../simulator/schema";
import { CRDS } from "./reference";

/**
 * Checks rendered manifests against the upstream CRDs (`CRDS.dir`) with the simulator's own validator
 * and pruner, i.e. exactly as the test cluster (and a real API server) would treat them. Tests using it
 * call `requireReference(this, CRDS)` first.
 */
let schemas: CrdSchemas | undefined;

export function crdSchemas(): CrdSchemas {
  schemas ??= CrdSchemas.load(CRDS.dir);
  return schemas;
}

/** Fails unless a CRD covers the manifest, it validates, and no field of it would be pruned (see `problems`). */
export function assertMatchesCrd(manifest: object, options: { patch?: boolean } = {}): void {
  const m = manifest as { apiVersion: string; kind: string; metadata?: { name?: string } };
  const what = `${m.kind} ${m.metadata?.name ?? ""} (${m.apiVersion})`;
  assert.deepEqual(
    crdSchemas().problems(manifest, options),
    [],
    `${what} violates its CRD schema or loses fields to pruning (CRDs in ${CRDS.dir})`,
  );
}
