export { ApiServer } from "./server";
export type { ApiServerOptions, RequestObserver } from "./server";
export type { Protocol } from "./transport";
export { ServerFaults } from "./faults";
export type { ControlAnswer, ErrorCode, FaultHandler, ServerFaultsStatus } from "./faults";
export { ResourceRegistry } from "./resources";
export type { ResourceType } from "./resources";
