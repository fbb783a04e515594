export {
  operatorNamespace,
  operatorGroup,
  subscription,
  SUBSCRIPTION_DEFAULTS,
  TARGET_NAMESPACES,
  type InstallPlanApproval,
  type OperatorSubscriptionArgs,
} from "./subscription";
export { checkAgainstCatalog, type CatalogChoice, type PackageManifestStatus } from "./catalog";
