/**
 * Pure manifest builders: plain data in, plain Kubernetes objects out, no Pulumi. Usable on their own
 * (e.g. to render YAML) and the single source of every manifest the components apply.
 */
export * from "./errors";
export * from "./validation";
export * from "./machineset";
export * from "./machineconfiguration";
export * from "./infra-placement";
export * from "./olm";
export * from "./windows";
export * from "./rollout-impact";
export * from "./autoscaling";
export * from "./health-check";
