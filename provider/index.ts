/**
 * Convergence waiters: the Pulumi-free core (`waiting`) and the dynamic resources built on it.
 */
export * from "./dynamic";
export * as waiting from "./waiting";
