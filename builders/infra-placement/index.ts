export {
  placementFor,
  ingressControllerPlacementPatch,
  imageRegistryPlacementPatch,
  monitoringConfigMapPatch,
  monitoringConfigYaml,
  requireIngressReplicas,
  requireMonitoringConfig,
  MONITORING_COMPONENTS,
  type NodePlacement,
  type Toleration,
} from "./placement";
